import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../server/context.ts'
import { idParams } from '../companies/json-schema.ts'
import { listRunners } from './list.ts'

// The runners a company's server has heard from (recorded by runners/seen.ts on claims and
// heartbeats). Any member may list them.
export async function runnerRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.get('/runners', { schema: { tags: ['runners'], params: idParams() } }, async (request) =>
    listRunners(ctx.db, request.membership.companyId, ctx.config.runLeaseSeconds),
  )
}
