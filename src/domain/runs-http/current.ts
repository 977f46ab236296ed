import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { errors } from '../../contract/common.ts'
import { RunContext } from '../../contract/runs.ts'
import { Type } from 'typebox'
import type { AppContext } from '../../server/context.ts'
import { requireRun } from '../../server/http/guards.ts'
import { getRun } from '../runs/lookup.ts'
import { runContext } from './run-context.ts'

/**
 * GET /api/run: the run behind a run credential, with the context its runner got at the claim
 * (run, agent, manager, company, task with its last comments, goal chain, project). The
 * credential is opaque to clients, so this is how an agent's tools (`shopfloor mcp`) learn
 * which run, agent and company they act for.
 */
export async function currentRunRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()
  const schema = {
    tags: ['runs'], operationId: 'getCurrentRun', summary: 'The run behind a run credential, with its context',
    response: { 200: Type.Omit(RunContext, ['run_token']), ...errors(401, 403) },
  }
  app.get('/api/run', { onRequest: requireRun(ctx), schema }, async (request) => {
    const { run, user } = request.principal
    const current = await getRun(ctx.db, run!.companyId, run!.runId)
    return runContext(ctx.db, run!.companyId, current, user.id, ctx.config.runLeaseSeconds)
  })
}
