import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { CompanyParams, companyErrors, errors, IdParams, NoContent } from '../../contract/common.ts'
import { Goal, GoalCreateBody, GoalPatchBody } from '../../contract/goals.ts'
import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { userActor } from '../../server/http/guards.ts'
import { createGoal, deleteGoal, getGoal, listGoals, updateGoal } from './service.ts'

const GoalParams = IdParams('goal_id')

// Goals: list, create, get, update, delete.
export async function goalRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['goals']

  app.get(
    '/goals',
    { schema: { tags, operationId: 'listGoals', summary: 'List goals', params: CompanyParams, response: { 200: Type.Array(Goal), ...companyErrors() } } },
    async (request) => listGoals(ctx.db, request.membership.companyId),
  )

  app.post(
    '/goals',
    {
      schema: {
        tags, operationId: 'createGoal', summary: 'Create a goal',
        params: CompanyParams, body: GoalCreateBody, response: { 201: Goal, ...companyErrors(), ...errors(400) },
      },
    },
    async (request, reply) => {
      const goal = await write(ctx, (tx) => createGoal(tx, request.membership.companyId, userActor(request), request.body))
      return reply.status(201).send(goal)
    },
  )

  app.get(
    '/goals/:goal_id',
    { schema: { tags, operationId: 'getGoal', summary: 'Get a goal', params: GoalParams, response: { 200: Goal, ...companyErrors() } } },
    async (request) => getGoal(ctx.db, request.membership.companyId, request.params.goal_id),
  )

  app.patch(
    '/goals/:goal_id',
    {
      schema: {
        tags, operationId: 'updateGoal', summary: 'Update a goal',
        params: GoalParams, body: GoalPatchBody, response: { 200: Goal, ...companyErrors(), ...errors(400) },
      },
    },
    async (request) =>
      write(ctx, (tx) => updateGoal(tx, request.membership.companyId, request.params.goal_id, userActor(request), request.body)),
  )

  app.delete(
    '/goals/:goal_id',
    {
      schema: {
        tags, operationId: 'deleteGoal', summary: 'Delete a goal', description: 'Its sub-goals and tasks are detached.',
        params: GoalParams, response: { 204: NoContent, ...companyErrors() },
      },
    },
    async (request, reply) => {
      await write(ctx, (tx) => deleteGoal(tx, request.membership.companyId, request.params.goal_id, userActor(request)))
      return reply.status(204).send()
    },
  )
}
