import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { Comment, CommentCreateBody, CommentParams, CommentPatchBody } from '../../contract/comments.ts'
import { companyErrors, errors, NoContent } from '../../contract/common.ts'
import { TaskParams } from '../../contract/tasks.ts'
import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { userActor } from '../../server/http/guards.ts'
import { actingActor } from '../tasks/acting.ts'
import { addComment, deleteComment, listComments, updateComment } from './service.ts'

// Task comments. `run_id` attributes a write to the run's agent, as for tasks.
export async function commentRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['comments']

  app.get(
    '/tasks/:task_ref/comments',
    {
      schema: {
        tags, operationId: 'listComments', summary: "List a task's comments", description: 'Oldest first.',
        params: TaskParams, response: { 200: Type.Array(Comment), ...companyErrors() },
      },
    },
    async (request) => listComments(ctx.db, request.membership.companyId, request.params.task_ref),
  )

  app.post(
    '/tasks/:task_ref/comments',
    {
      schema: {
        tags, operationId: 'createComment', summary: 'Comment on a task',
        params: TaskParams, body: CommentCreateBody, response: { 201: Comment, ...companyErrors(), ...errors(400) },
      },
    },
    async (request, reply) => {
      const { companyId } = request.membership
      const { run_id, ...input } = request.body
      const comment = await write(ctx, async (tx) =>
        addComment(tx, companyId, request.params.task_ref, await actingActor(tx, companyId, userActor(request), run_id), input),
      )
      return reply.status(201).send(comment)
    },
  )

  app.patch(
    '/tasks/:task_ref/comments/:comment_id',
    {
      schema: {
        tags, operationId: 'updateComment', summary: 'Edit a comment',
        params: CommentParams, body: CommentPatchBody, response: { 200: Comment, ...companyErrors(), ...errors(400) },
      },
    },
    async (request) => {
      const { companyId } = request.membership
      const { task_ref, comment_id } = request.params
      const { run_id, ...patch } = request.body
      return write(ctx, async (tx) =>
        updateComment(tx, companyId, task_ref, comment_id, await actingActor(tx, companyId, userActor(request), run_id), patch),
      )
    },
  )

  app.delete(
    '/tasks/:task_ref/comments/:comment_id',
    {
      schema: {
        tags, operationId: 'deleteComment', summary: 'Delete a comment',
        params: CommentParams, response: { 204: NoContent, ...companyErrors() },
      },
    },
    async (request, reply) => {
      const { task_ref, comment_id } = request.params
      await write(ctx, (tx) => deleteComment(tx, request.membership.companyId, task_ref, comment_id, userActor(request)))
      return reply.status(204).send()
    },
  )
}
