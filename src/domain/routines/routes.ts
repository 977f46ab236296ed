import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { CompanyParams, companyErrors, errors, IdParams, NoContent } from '../../contract/common.ts'
import { Routine, RoutineCreateBody, RoutinePatchBody, RoutineTrigger } from '../../contract/routines.ts'
import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { userActor } from '../../server/http/guards.ts'
import { createRoutine, deleteRoutine, getRoutine, listRoutines, updateRoutine } from './service.ts'
import { triggerRoutine } from './trigger.ts'

const RoutineParams = IdParams('routine_id')

// Routines: CRUD and trigger.
export async function routineRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['routines']

  app.get(
    '/routines',
    {
      schema: {
        tags, operationId: 'listRoutines', summary: 'List routines',
        params: CompanyParams, response: { 200: Type.Array(Routine), ...companyErrors() },
      },
    },
    async (request) => listRoutines(ctx.db, request.membership.companyId),
  )

  app.post(
    '/routines',
    {
      schema: {
        tags, operationId: 'createRoutine', summary: 'Create a routine',
        params: CompanyParams, body: RoutineCreateBody, response: { 201: Routine, ...companyErrors() },
      },
    },
    async (request, reply) => {
      const routine = await write(ctx, (tx) => createRoutine(tx, request.membership.companyId, userActor(request), request.body))
      return reply.status(201).send(routine)
    },
  )

  app.get(
    '/routines/:routine_id',
    { schema: { tags, operationId: 'getRoutine', summary: 'Get a routine', params: RoutineParams, response: { 200: Routine, ...companyErrors() } } },
    async (request) => getRoutine(ctx.db, request.membership.companyId, request.params.routine_id),
  )

  app.patch(
    '/routines/:routine_id',
    {
      schema: {
        tags, operationId: 'updateRoutine', summary: 'Update a routine',
        params: RoutineParams, body: RoutinePatchBody, response: { 200: Routine, ...companyErrors() },
      },
    },
    async (request) =>
      write(ctx, (tx) => updateRoutine(tx, request.membership.companyId, request.params.routine_id, userActor(request), request.body)),
  )

  app.delete(
    '/routines/:routine_id',
    {
      schema: {
        tags, operationId: 'deleteRoutine', summary: 'Delete a routine', description: 'The tasks and runs it made stay.',
        params: RoutineParams, response: { 204: NoContent, ...companyErrors() },
      },
    },
    async (request, reply) => {
      await write(ctx, (tx) => deleteRoutine(tx, request.membership.companyId, request.params.routine_id, userActor(request)))
      return reply.status(204).send()
    },
  )

  app.post(
    '/routines/:routine_id/trigger',
    {
      schema: {
        tags, operationId: 'triggerRoutine', summary: 'Run a routine now', description: 'Creates its task and queues the run.',
        params: RoutineParams, response: { 201: RoutineTrigger, ...companyErrors(), ...errors(400) },
      },
    },
    async (request, reply) => {
      const triggered = await triggerRoutine(ctx, request.membership.companyId, request.params.routine_id, userActor(request))
      return reply.status(201).send(triggered)
    },
  )
}
