import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { CompanyParams, companyErrors } from '../../contract/common.ts'
import { Runner } from '../../contract/runners.ts'
import type { AppContext } from '../../server/context.ts'
import { listRunners } from './list.ts'

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
}
