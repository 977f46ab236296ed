import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { CompanyParams, companyErrors, errors, IdParams, NoContent } from '../../contract/common.ts'
import { ClaimBody, ExpiredRuns, GetRunQuery, HeartbeatBody, ListRunsQuery, ReportBody, Run, RunContext, TranscriptPage, TranscriptPageQuery, WakeBody } from '../../contract/runs.ts'
import { signRunToken } from '../../server/auth/tokens.ts'
import type { AppContext } from '../../server/context.ts'
import { systemActor } from '../../server/actor.ts'
import type { Queryable } from '../../server/db/db.ts'
import { userActor } from '../../server/http/guards.ts'
import { claims } from '../../server/metrics.ts'
import { runnerSeen } from '../runners/seen.ts'
import { cancelRun } from '../runs/cancel.ts'
import { claimRun } from '../runs/claim.ts'
import { expireStaleRuns } from '../runs/expire.ts'
import { getRun, getTranscriptPage, listRuns } from '../runs/lookup.ts'
import { withWaitingReasons } from '../runs/waiting.ts'
import { heartbeatRun, reportRun } from '../runs/report.ts'
import { sendBackAfterFailedChecks } from '../work/sent-back.ts'
import { runContext } from './run-context.ts'
import { wakeAgent } from '../runs/wake.ts'

const tags = ['runs']
const RunParams = IdParams('run_id')

// Runs and the runner protocol: list, get, claim, heartbeat, report, cancel, expire-stale; and
// waking an agent, which queues a run.
export async function runRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()

  app.get(
    '/runs',
    {
      schema: {
        tags, operationId: 'listRuns', summary: 'List runs', description: 'Newest first, without transcripts.',
        params: CompanyParams, querystring: ListRunsQuery, response: { 200: Type.Array(Run), ...companyErrors() },
      },
    },
    async (request) => {
      const { companyId } = request.membership
      return withWaitingReasons(ctx.db, companyId, await listRuns(ctx.db, companyId, { ...request.query, limit: request.query.limit ?? 100 }), ctx.config.runLeaseSeconds)
    },
  )

  app.get(
    '/runs/:run_id',
    {
      schema: {
        tags, operationId: 'getRun', summary: 'Get a run with its transcript',
        description: 'The transcript holds the last 2,000 entries at most, from transcript_from on when given; the answer\'s transcript_from says where it starts, transcript_count (and transcript_total) how many there are in all. GET /runs/{run_id}/transcript pages through the rest.',
        params: RunParams, querystring: GetRunQuery, response: { 200: Run, ...companyErrors() },
      },
    },
    async (request) => {
      const { companyId } = request.membership
      const run = await getRun(ctx.db, companyId, request.params.run_id, request.query.transcript_from ?? 0)
      return (await withWaitingReasons(ctx.db, companyId, [run], ctx.config.runLeaseSeconds))[0]
    },
  )

  app.get(
    '/runs/:run_id/transcript',
    {
      schema: {
        tags, operationId: 'getRunTranscript', summary: "A page of a run's transcript",
        description: 'The entries after the first `after` (default 0), at most `limit` (default 500, up to 2,000), and `transcript_total`.',
        params: RunParams, querystring: TranscriptPageQuery, response: { 200: TranscriptPage, ...companyErrors() },
      },
    },
    async (request) => getTranscriptPage(ctx.db, request.membership.companyId, request.params.run_id, request.query.after ?? 0, request.query.limit ?? 500),
  )

  app.post(
    '/runs/claim',
    {
      schema: {
        tags, operationId: 'claimRun', summary: 'Claim the next queued run (runners)',
        description: 'Answers the run with everything needed to execute it, or 204 when nothing is queued.',
        params: CompanyParams, body: ClaimBody, response: { 200: RunContext, 204: NoContent, ...companyErrors(), ...errors(403) },
      },
    },
    async (request, reply) => {
      const { runner_id, agent_ids, adapters, versions, cooldowns } = request.body
      const { companyId } = request.membership
      await runnerSeen(ctx, companyId, { runnerId: runner_id, offer: { adapters: adapters ?? null, versions: versions ?? {} }, cooldowns })
      // The service starts the agent's run (audited as `system` named after the agent), not the key's owner.
      const run = await claimRun(ctx, companyId, { runnerId: runner_id, agentIds: agent_ids, adapters }, systemActor())
      claims.inc({ result: run ? 'claimed' : 'empty' })
      if (!run) return reply.status(204).send()
      const context = await runContext(ctx.db, companyId, run, request.principal.user.id, ctx.config.runLeaseSeconds)
      // The agent's own credential for this run, handed to its process instead of the runner's key.
      return { ...context, run_token: signRunToken(ctx.config.jwtSecret, run, request.principal.user.id) }
    },
  )

  app.post(
    '/runs/expire-stale',
    {
      schema: {
        tags, operationId: 'expireStaleRuns', summary: 'Fail the running runs whose lease is over',
        params: CompanyParams, response: { 200: ExpiredRuns, ...companyErrors(), ...errors(403) },
      },
    },
    async (request) => ({ expired: await expireStaleRuns(ctx, request.membership.companyId) }),
  )

  app.post(
    '/runs/:run_id/heartbeat',
    {
      schema: {
        tags, operationId: 'heartbeatRun', summary: 'Extend the lease of a running run (runners)',
        params: RunParams, body: HeartbeatBody, response: { 200: Run, ...companyErrors(), ...errors(400, 403, 409) },
      },
    },
    async (request) => {
      const { runner_id, cooldowns } = request.body
      const run = await heartbeatRun(ctx, request.membership.companyId, request.params.run_id, runner_id)
      // Only a heartbeat that held its run is a sighting: a refused one names a runner_id that
      // may never have run anything.
      await runnerSeen(ctx, request.membership.companyId, { runnerId: runner_id, cooldowns })
      return run
    },
  )

  app.patch(
    '/runs/:run_id',
    {
      schema: {
        tags, operationId: 'reportRun', summary: 'Report progress or the outcome of a run (runners)',
        description: 'tokens_in, tokens_out and cost_cents are running totals; transcript entries are appended.',
        params: RunParams, body: ReportBody, response: { 200: Run, ...companyErrors(), ...errors(400, 403, 409) },
      },
    },
    async (request) => {
      const { companyId } = request.membership
      // A run's end, as its runner reports it, is the agent's run ending: `system` named after the agent.
      const ending = request.body.status === 'succeeded' || request.body.status === 'failed'
      const actor = ending ? systemActor(await runAgentName(ctx.db, companyId, request.params.run_id)) : userActor(request)
      return reportRun(ctx, companyId, request.params.run_id, request.body, actor, sendBackAfterFailedChecks)
    },
  )

  app.post(
    '/runs/:run_id/cancel',
    {
      schema: {
        tags, operationId: 'cancelRun', summary: 'Cancel a queued or running run',
        params: RunParams, response: { 200: Run, ...companyErrors(), ...errors(400, 403) },
      },
    },
    async (request) => cancelRun(ctx, request.membership.companyId, request.params.run_id, userActor(request)),
  )

  app.post(
    '/agents/:agent_id/wake',
    {
      schema: {
        tags: ['agents'], operationId: 'wakeAgent', summary: 'Wake an agent: queue a manual run',
        params: IdParams('agent_id'), body: WakeBody, response: { 201: Run, ...companyErrors(), ...errors(400, 403) },
      },
    },
    async (request, reply) => {
      const body = request.body ?? {}
      const run = await wakeAgent(ctx, request.membership.companyId, request.params.agent_id, { taskId: body.task_id, reason: body.reason, freshSession: body.fresh_session }, userActor(request))
      return reply.status(201).send(run)
    },
  )
}

/** The name of the run's agent (null when there is no such run: the report then answers why). */
async function runAgentName(db: Queryable, companyId: string, runId: string): Promise<string | null> {
  const row = await db.one<{ name: string }>('SELECT a.name FROM runs r JOIN agents a ON a.id = r.agent_id WHERE r.id = $1 AND r.company_id IS NOT DISTINCT FROM $2', [runId, companyId])
  return row?.name ?? null
}
