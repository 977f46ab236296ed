import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { userActor } from '../../server/http/guards.ts'
import { nullableUuid, uuid } from '../companies/json-schema.ts'
import { actingActor } from '../tasks/acting.ts'
import { taskParams } from '../tasks/schemas.ts'
import { addComment, COMMENT_KINDS, deleteComment, listComments, updateComment } from './service.ts'

const kind = { type: 'string', enum: [...COMMENT_KINDS] } as const
const body = { type: 'string', minLength: 1 } as const

const createBody = { type: 'object', required: ['body'], properties: { body, kind, run_id: nullableUuid } } as const
const patchBody = { type: 'object', properties: { body, kind, run_id: nullableUuid } } as const
const commentParams = {
  type: 'object',
  properties: { ...taskParams.properties, comment_id: uuid },
  required: [...taskParams.required, 'comment_id'],
} as const

type Params = { task_ref: string; comment_id: string }
type Body = { body?: string; kind?: string; run_id?: string | null }

// Task comments. `run_id` attributes a write to the run's agent, as for tasks.
export async function commentRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const tags = ['comments']

  app.get('/tasks/:task_ref/comments', { schema: { tags, params: taskParams } }, async (request) =>
    listComments(ctx.db, request.membership.companyId, (request.params as Params).task_ref),
  )

  app.post('/tasks/:task_ref/comments', { schema: { tags, params: taskParams, body: createBody } }, async (request, reply) => {
    const { companyId } = request.membership
    const { run_id, ...input } = request.body as Body & { body: string }
    const comment = await write(ctx, async (tx) =>
      addComment(tx, companyId, (request.params as Params).task_ref, await actingActor(tx, companyId, userActor(request), run_id), input),
    )
    return reply.status(201).send(comment)
  })

  app.patch('/tasks/:task_ref/comments/:comment_id', { schema: { tags, params: commentParams, body: patchBody } }, async (request) => {
    const { companyId } = request.membership
    const { task_ref, comment_id } = request.params as Params
    const { run_id, ...patch } = request.body as Body
    return write(ctx, async (tx) =>
      updateComment(tx, companyId, task_ref, comment_id, await actingActor(tx, companyId, userActor(request), run_id), patch),
    )
  })

  app.delete('/tasks/:task_ref/comments/:comment_id', { schema: { tags, params: commentParams } }, async (request, reply) => {
    const { task_ref, comment_id } = request.params as Params
    await write(ctx, (tx) => deleteComment(tx, request.membership.companyId, task_ref, comment_id, userActor(request)))
    return reply.status(204).send()
  })
}
