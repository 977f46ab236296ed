import type { FastifyInstance } from 'fastify'
import { signRunToken } from '../../server/auth/tokens.ts'
import type { AppContext } from '../../server/context.ts'
import { claims } from '../../server/metrics.ts'
import { userActor } from '../../server/http/guards.ts'
import { RunnerVersions } from '../../contract/runners.ts'
import { idParams, nullable, nullableUuid, uuid } from '../companies/json-schema.ts'
import { runnerSeen } from '../runners/seen.ts'
import { cancelRun } from './cancel.ts'
import { claimRun } from './claim.ts'
import { expireStaleRuns } from './expire.ts'
import { getRun, listRuns, type RunFilter } from './lookup.ts'
import { RUN_STATUSES } from './model.ts'
import { heartbeatRun, type RunReport, reportRun } from './report.ts'
import { runContext } from './run-context.ts'
import { wakeAgent } from './wake.ts'

const tags = ['runs']

const runnerId = { type: 'string', minLength: 1, maxLength: 100 } as const
const count = { type: 'integer', minimum: 0 } as const

const listQuery = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 100 },
    agent_id: uuid,
    task_id: uuid,
    status: { type: 'array', items: { type: 'string', enum: RUN_STATUSES } },
  },
} as const

const claimBody = {
  type: 'object',
  required: ['runner_id'],
  properties: {
    runner_id: runnerId,
    agent_ids: nullable({ type: 'array', items: uuid }),
    adapters: nullable({ type: 'array', items: { type: 'string', maxLength: 100 }, maxItems: 50 }),
    // The runner's CLI versions by program, shown in the runners list.
    versions: nullable(RunnerVersions),
  },
} as const

const heartbeatBody = { type: 'object', required: ['runner_id'], properties: { runner_id: runnerId } } as const

const reportBody = {
  type: 'object',
  required: ['runner_id'],
  properties: {
    runner_id: runnerId,
    // `queued` passes the schema so that it can answer INVALID_STATE rather than 422.
    status: { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed'] },
    tokens_in: count,
    tokens_out: count,
    cost_cents: count,
    summary: nullable({ type: 'string' }),
    error: nullable({ type: 'string' }),
    session_id: nullable({ type: 'string', maxLength: 200 }),
    transcript: {
      type: 'array',
      items: {
        type: 'object',
        required: ['text'],
        properties: {
          timestamp: nullable({ type: 'string' }),
          role: { type: 'string', enum: ['agent', 'tool', 'system', 'user'] },
          text: { type: 'string' },
        },
      },
    },
  },
} as const

const wakeBody = {
  type: ['object', 'null'],
  properties: { task_id: nullableUuid, reason: nullable({ type: 'string' }) },
} as const

type Params = { company_id: string; run_id: string }

// Runs and the runner protocol: list, get, claim, heartbeat, report, cancel, expire-stale; and
// waking an agent, which queues a run.
export async function runRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.get('/runs', { schema: { tags, params: idParams(), querystring: listQuery } }, async (request) => {
    return listRuns(ctx.db, request.membership.companyId, request.query as RunFilter)
  })

  app.get('/runs/:run_id', { schema: { tags, params: idParams('run_id') } }, async (request) => {
    return getRun(ctx.db, request.membership.companyId, (request.params as Params).run_id)
  })

  app.post('/runs/claim', { schema: { tags, params: idParams(), body: claimBody } }, async (request, reply) => {
    const body = request.body as { runner_id: string; agent_ids?: string[] | null; adapters?: string[] | null; versions?: Record<string, string> | null }
    const { companyId } = request.membership
    await runnerSeen(ctx, companyId, { runnerId: body.runner_id, offer: { adapters: body.adapters ?? null, versions: body.versions ?? {} } })
    const run = await claimRun(ctx, companyId, { runnerId: body.runner_id, agentIds: body.agent_ids, adapters: body.adapters }, userActor(request))
    claims.inc({ result: run ? 'claimed' : 'empty' })
    if (!run) return reply.status(204).send()
    const context = await runContext(ctx.db, companyId, run, request.principal.user.id, ctx.config.runLeaseSeconds)
    // The agent's own credential for this run, handed to its process instead of the runner's key.
    return { ...context, run_token: await signRunToken(ctx.config.jwtSecret, run, request.principal.user.id) }
  })

  app.post('/runs/expire-stale', { schema: { tags, params: idParams() } }, async (request) => {
    return { expired: await expireStaleRuns(ctx, request.membership.companyId) }
  })

  app.post('/runs/:run_id/heartbeat', { schema: { tags, params: idParams('run_id'), body: heartbeatBody } }, async (request) => {
    const { runner_id } = request.body as { runner_id: string }
    await runnerSeen(ctx, request.membership.companyId, { runnerId: runner_id })
    return heartbeatRun(ctx, request.membership.companyId, (request.params as Params).run_id, runner_id)
  })

  app.patch('/runs/:run_id', { schema: { tags, params: idParams('run_id'), body: reportBody } }, async (request) => {
    const { run_id } = request.params as Params
    return reportRun(ctx, request.membership.companyId, run_id, request.body as RunReport, userActor(request))
  })

  app.post('/runs/:run_id/cancel', { schema: { tags, params: idParams('run_id') } }, async (request) => {
    return cancelRun(ctx, request.membership.companyId, (request.params as Params).run_id, userActor(request))
  })

  app.post('/agents/:agent_id/wake', { schema: { tags: ['agents'], params: idParams('agent_id'), body: wakeBody } }, async (request, reply) => {
    const body = (request.body ?? {}) as { task_id?: string | null; reason?: string | null }
    const { agent_id } = request.params as { agent_id: string }
    const run = await wakeAgent(ctx, request.membership.companyId, agent_id, { taskId: body.task_id, reason: body.reason }, userActor(request))
    return reply.status(201).send(run)
  })
}
