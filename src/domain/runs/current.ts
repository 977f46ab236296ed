import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../server/context.ts'
import { requireRun } from '../../server/http/guards.ts'
import { getRun } from './lookup.ts'
import { runContext } from './run-context.ts'

/**
 * GET /api/run: the run behind a run credential, with the context its runner got at the claim
 * (run, agent, manager, company, task with its last comments, goal chain, project). The
 * credential is opaque to clients, so this is how an agent's tools (`shopfloor mcp`) learn
 * which run, agent and company they act for.
 */
export async function currentRunRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.get('/api/run', { onRequest: requireRun(ctx), schema: { tags: ['runs'] } }, async (request) => {
    const { run, user } = request.principal
    const current = await getRun(ctx.db, run!.companyId, run!.runId)
    return runContext(ctx.db, run!.companyId, current, user.id, ctx.config.runLeaseSeconds)
  })
}
