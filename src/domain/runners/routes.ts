import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { CompanyParams, companyErrors, NoContent } from '../../contract/common.ts'
import { Runner, RunnerParams } from '../../contract/runners.ts'
import type { AppContext } from '../../server/context.ts'
import { listRunners } from './list.ts'
import { runnerGoodbye } from './seen.ts'

// The runners a company's server has heard from (recorded by runners/seen.ts on claims and
// heartbeats). Any member may list them.
export async function runnerRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()
  app.get(
    '/runners',
    {
      schema: {
        tags: ['runners'], operationId: 'listRunners', summary: 'Runners heard from in the last 24 hours',
        params: CompanyParams, response: { 200: Type.Array(Runner), ...companyErrors() },
      },
    },
    async (request) => listRunners(ctx.db, request.membership.companyId, ctx.config.runLeaseSeconds),
  )

  // A runner stopping cleanly says so, so that people see "Stopped" at once rather than
  // "Online" until its silence makes it gone.
  app.post(
    '/runners/:runner_id/goodbye',
    {
      schema: {
        tags: ['runners'], operationId: 'runnerGoodbye', summary: 'A runner says it stopped cleanly',
        params: RunnerParams, response: { 204: NoContent, ...companyErrors() },
      },
    },
    async (request, reply) => {
      await runnerGoodbye(ctx, request.membership.companyId, request.params.runner_id)
      return reply.status(204).send()
    },
  )
}
