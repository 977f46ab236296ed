import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { userActor } from '../../server/http/guards.ts'
import { actingActor } from './acting.ts'
import { createTask, type TaskInput } from './create.ts'
import { deleteTask } from './delete.ts'
import { findTask } from './find.ts'
import { type TaskFilters, listTasks } from './list.ts'
import { companyParams, createTaskBody, listTasksQuery, patchTaskBody, taskParams } from './schemas.ts'
import { type TaskPatch, updateTask } from './update.ts'

type TaskParams = { task_ref: string }

// Tasks: create, list, get, update, delete. `run_id` on a write attributes it to the run's agent.
export async function taskRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const tags = ['tasks']

  app.post('/tasks', { schema: { tags, params: companyParams, body: createTaskBody } }, async (request, reply) => {
    const { companyId } = request.membership
    const input = request.body as TaskInput
    const task = await createTask(ctx, companyId, await actingActor(ctx.db, companyId, userActor(request), input.run_id), input)
    return reply.status(201).send(task)
  })

  app.get('/tasks', { schema: { tags, params: companyParams, querystring: listTasksQuery } }, async (request) =>
    listTasks(ctx.db, request.membership.companyId, request.principal.user.id, request.query as TaskFilters),
  )

  app.get('/tasks/:task_ref', { schema: { tags, params: taskParams } }, async (request) =>
    findTask(ctx.db, request.membership.companyId, (request.params as TaskParams).task_ref),
  )

  app.patch('/tasks/:task_ref', { schema: { tags, params: taskParams, body: patchTaskBody } }, async (request) => {
    const { companyId } = request.membership
    const { run_id, ...patch } = request.body as TaskPatch & { run_id?: string | null }
    return write(ctx, async (tx) =>
      updateTask(tx, companyId, (request.params as TaskParams).task_ref, await actingActor(tx, companyId, userActor(request), run_id), patch),
    )
  })

  app.delete('/tasks/:task_ref', { schema: { tags, params: taskParams } }, async (request, reply) => {
    const { companyId } = request.membership
    await write(ctx, (tx) => deleteTask(tx, companyId, (request.params as TaskParams).task_ref, userActor(request)))
    return reply.status(204).send()
  })
}
