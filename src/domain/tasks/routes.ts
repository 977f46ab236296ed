import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { Type } from 'typebox'
import { CompanyParams, companyErrors, errors, NoContent } from '../../contract/common.ts'
import { ListTasksQuery, Task, TaskCreateBody, TaskParams, TaskPatchBody } from '../../contract/tasks.ts'
import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { userActor } from '../../server/http/guards.ts'
import { queryKey, rightsKey, SingleFlight } from '../../server/http/single-flight.ts'
import { actingActor } from './acting.ts'
import { createTask } from './create.ts'
import { deleteTask } from './delete.ts'
import { findTask } from './find.ts'
import { listTasksJson } from './list.ts'
import { updateTask } from './update.ts'

// Tasks: create, list, get, update, delete. `run_id` on a write attributes it to the run's agent.
export async function taskRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['tasks']
  // Identical lists asked at the same moment by the same rights are written once (single-flight.ts).
  const lists = new SingleFlight<string>('/tasks')

  app.post(
    '/tasks',
    {
      schema: {
        tags, operationId: 'createTask', summary: 'Create a task',
        params: CompanyParams, body: TaskCreateBody,
        response: { 201: Task, ...companyErrors(), ...errors(400) },
      },
    },
    async (request, reply) => {
      const { companyId } = request.membership
      const input = request.body
      const task = await createTask(ctx, companyId, await actingActor(ctx.db, companyId, userActor(request), input.run_id), input)
      return reply.status(201).send(task)
    },
  )

  app.get(
    '/tasks',
    {
      schema: {
        tags, operationId: 'listTasks', summary: 'List tasks', description: 'In board order: sort_order, then newest number first.',
        params: CompanyParams, querystring: ListTasksQuery,
        response: { 200: Type.Array(Task), ...companyErrors() },
      },
    },
    // Already JSON (list.ts): a string of that type is sent as it is, not serialised again
    // (hence the reply without the route's typed payload).
    async (request, reply) => {
      const { companyId } = request.membership
      const filters = { ...request.query, limit: request.query.limit ?? 500 }
      const json = await lists.run(`${companyId} ${rightsKey(request)} ${queryKey(filters)}`, () =>
        listTasksJson(ctx.db, companyId, request.principal.user.id, filters))
      return (reply as FastifyReply).type('application/json').send(json)
    },
  )

  app.get(
    '/tasks/:task_ref',
    {
      schema: {
        tags, operationId: 'getTask', summary: 'Get a task by id or key',
        params: TaskParams, response: { 200: Task, ...companyErrors() },
      },
    },
    async (request) => findTask(ctx.db, request.membership.companyId, request.params.task_ref),
  )

  app.patch(
    '/tasks/:task_ref',
    {
      schema: {
        tags, operationId: 'updateTask', summary: 'Update a task',
        params: TaskParams, body: TaskPatchBody, response: { 200: Task, ...companyErrors(), ...errors(400) },
      },
    },
    async (request) => {
      const { companyId } = request.membership
      const { run_id, ...patch } = request.body
      return write(ctx, async (tx) =>
        updateTask(tx, companyId, request.params.task_ref, await actingActor(tx, companyId, userActor(request), run_id), patch),
      )
    },
  )

  app.delete(
    '/tasks/:task_ref',
    {
      schema: {
        tags, operationId: 'deleteTask', summary: 'Delete a task',
        description: 'Deletes its comments and detaches its subtasks; its runs stay with task_id null.',
        params: TaskParams, response: { 204: NoContent, ...companyErrors() },
      },
    },
    async (request, reply) => {
      const { companyId } = request.membership
      await write(ctx, (tx) => deleteTask(tx, companyId, request.params.task_ref, userActor(request)))
      return reply.status(204).send()
    },
  )
}
