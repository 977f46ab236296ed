import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { CompanyParams, companyErrors, errors } from '../../contract/common.ts'
import { Costs, CostsQuery, Dashboard, DashboardQuery, Inbox } from '../../contract/insights.ts'
import type { AppContext } from '../../server/context.ts'
import { rightsKey, SingleFlight } from '../../server/http/single-flight.ts'
import { costs } from './costs.ts'
import { dashboard } from './dashboard.ts'
import { inbox } from './inbox.ts'

const tags = ['insights']

// Dashboard, costs and inbox: read-only aggregates for any member.
export async function insightRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()
  // Identical dashboards asked at the same moment by the same rights are read once
  // (single-flight.ts), and written as JSON once for all who share the answer.
  const dashboards = new SingleFlight<{ board: Dashboard; json?: string }>('/dashboard')

  app.get(
    '/dashboard',
    {
      schema: {
        tags, operationId: 'getDashboard', summary: 'The company dashboard',
        params: CompanyParams, querystring: DashboardQuery, response: { 200: Dashboard, ...companyErrors() },
      },
    },
    async (request, reply) => {
      const { companyId } = request.membership
      const days = request.query.days ?? 14
      const shared = await dashboards.run(`${companyId} ${rightsKey(request)} ${days}`, async () => ({
        board: await dashboard(ctx.db, companyId, request.principal.user.id, days),
      }))
      // The route's own serialiser (its response schema), once; the text is then sent as it is.
      shared.json ??= reply.serialize(shared.board) as string
      return (reply as FastifyReply).type('application/json').send(shared.json)
    },
  )

  app.get(
    '/costs',
    {
      schema: {
        tags, operationId: 'getCosts', summary: 'Spend of one UTC month', description: '`month` defaults to the current one.',
        params: CompanyParams, querystring: CostsQuery, response: { 200: Costs, ...companyErrors(), ...errors(400) },
      },
    },
    async (request) => costs(ctx.db, request.membership.companyId, request.query.month ?? null),
  )

  app.get(
    '/inbox',
    {
      schema: {
        tags, operationId: 'getInbox', summary: 'What waits for a person',
        params: CompanyParams, response: { 200: Inbox, ...companyErrors() },
      },
    },
    async (request) => inbox(ctx.db, request.membership.companyId),
  )
}
