import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { userActor } from '../../server/http/guards.ts'
import { idParams, nullableText, nullableTimestamp, nullableUuid } from '../companies/json-schema.ts'
import { createGoal, deleteGoal, GOAL_STATUSES, type GoalInput, getGoal, listGoals, updateGoal } from './service.ts'

const title = { type: 'string', minLength: 1, maxLength: 200 } as const
const fields = {
  description: nullableText,
  status: { type: 'string', enum: [...GOAL_STATUSES] },
  parent_id: nullableUuid,
  owner_agent_id: nullableUuid,
  target_date: nullableTimestamp,
} as const
const createBody = { type: 'object', required: ['title'], properties: { title, ...fields } } as const
const patchBody = { type: 'object', properties: { title, ...fields } } as const
const goalParams = idParams('goal_id')
type Params = { goal_id: string }

// Goals: list, create, get, update, delete.
export async function goalRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const tags = ['goals']

  app.get('/goals', { schema: { tags, params: idParams() } }, async (request) => listGoals(ctx.db, request.membership.companyId))

  app.post('/goals', { schema: { tags, params: idParams(), body: createBody } }, async (request, reply) => {
    const goal = await write(ctx, (tx) =>
      createGoal(tx, request.membership.companyId, userActor(request), request.body as GoalInput & { title: string }),
    )
    return reply.status(201).send(goal)
  })

  app.get('/goals/:goal_id', { schema: { tags, params: goalParams } }, async (request) =>
    getGoal(ctx.db, request.membership.companyId, (request.params as Params).goal_id),
  )

  app.patch('/goals/:goal_id', { schema: { tags, params: goalParams, body: patchBody } }, async (request) =>
    write(ctx, (tx) =>
      updateGoal(tx, request.membership.companyId, (request.params as Params).goal_id, userActor(request), request.body as GoalInput),
    ),
  )

  app.delete('/goals/:goal_id', { schema: { tags, params: goalParams } }, async (request, reply) => {
    await write(ctx, (tx) => deleteGoal(tx, request.membership.companyId, (request.params as Params).goal_id, userActor(request)))
    return reply.status(204).send()
  })
}
