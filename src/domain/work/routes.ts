import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { companyErrors, errors, IdParams, NoContent } from '../../contract/common.ts'
import { Task } from '../../contract/tasks.ts'
import { PATCH_MAX_BYTES, PatchUploadBody, ReviewBody } from '../../contract/work.ts'
import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { AppError, notFound } from '../../server/errors.ts'
import { userActor } from '../../server/http/guards.ts'
import { foundRunIsRunning } from '../runs/model.ts'
import { reviewTask } from './review.ts'

const tags = ['runs']
const RunParams = IdParams('run_id')
/** A 5 MiB patch as JSON: every character escaped at worst doubles it. */
const PATCH_BODY_LIMIT = 2 * PATCH_MAX_BYTES + 64 * 1024

// Work products: a run's patch (kept by its runner, read by people and agents) and the review
// of a task's work.
export async function workRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()

  app.get(
    '/runs/:run_id/patch',
    {
      schema: {
        tags, operationId: 'getRunPatch', summary: "The run's diff",
        description: 'text/x-diff, up to 5 MiB (a longer one is clipped and ends with a note saying so); 404 when the run has none.',
        params: RunParams, response: { 200: Type.String(), ...companyErrors() },
      },
    },
    async (request, reply) => {
      const row = await ctx.db.one<{ patch: string }>(
        'SELECT patch FROM run_patches WHERE run_id = $1 AND company_id IS NOT DISTINCT FROM $2',
        [request.params.run_id, request.membership.companyId],
      )
      if (!row) throw await noPatch(ctx, request.membership.companyId, request.params.run_id)
      return reply.type('text/x-diff; charset=utf-8').send(row.patch)
    },
  )

  app.put(
    '/runs/:run_id/patch',
    {
      bodyLimit: PATCH_BODY_LIMIT,
      schema: {
        tags, operationId: 'uploadRunPatch', summary: "Keep the run's diff (runners)",
        description: 'Only by the runner holding the running run; replaces an earlier one.',
        params: RunParams, body: PatchUploadBody, response: { 204: NoContent, ...companyErrors(), ...errors(403, 409, 413) },
      },
    },
    async (request, reply) => {
      const { runner_id, patch } = request.body
      if (Buffer.byteLength(patch) > PATCH_MAX_BYTES + 1000) {
        throw new AppError('PAYLOAD_TOO_LARGE', 'patch: a patch is at most 5 MiB (clip it and say so)', { field: 'patch' })
      }
      const { companyId } = request.membership
      const kept = await ctx.db.one(
        `INSERT INTO run_patches (run_id, company_id, patch)
         SELECT id, company_id, $4 FROM runs WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2 AND ${foundRunIsRunning()} AND runner_id = $3
         ON CONFLICT (run_id) DO UPDATE SET patch = excluded.patch, created_at = now()
         RETURNING run_id`,
        [request.params.run_id, companyId, runner_id, patch],
      )
      if (!kept) {
        const run = await ctx.db.one('SELECT 1 FROM runs WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2', [request.params.run_id, companyId])
        if (!run) throw notFound('Run')
        throw new AppError('RUN_LEASE_LOST', 'The run is not running or is held by another runner')
      }
      return reply.status(204).send()
    },
  )

  app.post(
    '/tasks/:task_ref/review',
    {
      schema: {
        tags: ['tasks'], operationId: 'reviewTask', summary: "Approve a task's work or request changes",
        description: 'People, and the project\'s reviewer agent through its run. Only a task in_review; approve moves it to done, request_changes (with a comment) back to todo with a run for its assignee.',
        params: Type.Object({ company_id: Type.String(), task_ref: Type.String() }), body: ReviewBody,
        response: { 200: Task, ...companyErrors(), ...errors(400, 403) },
      },
    },
    async (request) => write(ctx, (tx) => reviewTask(tx, request.membership.companyId, request.params.task_ref, userActor(request), request.body)),
  )
}

/** Why a run has no patch: retention removed it with the transcript (runs/retention.ts), or there never was one. */
async function noPatch(ctx: AppContext, companyId: string, runId: string): Promise<AppError> {
  const run = await ctx.db.one<{ transcript_trimmed_at: string | null }>(
    'SELECT transcript_trimmed_at FROM runs WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2', [runId, companyId])
  if (run?.transcript_trimmed_at) {
    return new AppError('NOT_FOUND', 'Patch removed with the transcript: the run finished longer ago than TRANSCRIPT_RETENTION_DAYS')
  }
  return notFound('Patch')
}
