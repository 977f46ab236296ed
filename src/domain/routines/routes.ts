import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { userActor } from '../../server/http/guards.ts'
import { idParams, nullableText, nullableUuid, uuid } from '../companies/json-schema.ts'
import type { RoutineInput } from './model.ts'
import { createRoutine, deleteRoutine, getRoutine, listRoutines, updateRoutine } from './service.ts'
import { triggerRoutine } from './trigger.ts'

const tags = ['routines']
const fields = {
  agent_id: uuid,
  project_id: nullableUuid,
  title: { type: 'string', minLength: 1, maxLength: 200 },
  description: nullableText,
  cron: { type: 'string', minLength: 1, maxLength: 100 },
  enabled: { type: 'boolean' },
} as const
const createBody = { type: 'object', required: ['agent_id', 'title', 'cron'], properties: fields } as const
const patchBody = { type: 'object', properties: fields } as const
const routineParams = idParams('routine_id')

type Params = { routine_id: string }

// Routines: CRUD and trigger.
export async function routineRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.get('/routines', { schema: { tags, params: idParams() } }, async (request) => listRoutines(ctx.db, request.membership.companyId))

  app.post('/routines', { schema: { tags, params: idParams(), body: createBody } }, async (request, reply) => {
    const input = request.body as Parameters<typeof createRoutine>[3]
    const routine = await write(ctx, (tx) => createRoutine(tx, request.membership.companyId, userActor(request), input))
    return reply.status(201).send(routine)
  })

  app.get('/routines/:routine_id', { schema: { tags, params: routineParams } }, async (request) =>
    getRoutine(ctx.db, request.membership.companyId, (request.params as Params).routine_id),
  )

  app.patch('/routines/:routine_id', { schema: { tags, params: routineParams, body: patchBody } }, async (request) => {
    const { routine_id } = request.params as Params
    return write(ctx, (tx) => updateRoutine(tx, request.membership.companyId, routine_id, userActor(request), request.body as RoutineInput))
  })

  app.delete('/routines/:routine_id', { schema: { tags, params: routineParams } }, async (request, reply) => {
    const { routine_id } = request.params as Params
    await write(ctx, (tx) => deleteRoutine(tx, request.membership.companyId, routine_id, userActor(request)))
    return reply.status(204).send()
  })

  app.post('/routines/:routine_id/trigger', { schema: { tags, params: routineParams } }, async (request, reply) => {
    const triggered = await triggerRoutine(ctx, request.membership.companyId, (request.params as Params).routine_id, userActor(request))
    return reply.status(201).send(triggered)
  })
}
