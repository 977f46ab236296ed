import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
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
  // Identical dashboards asked at the same moment by the same rights are read once (single-flight.ts).
  const dashboards = new SingleFlight<Dashboard>('/dashboard')

  app.get(
    '/dashboard',
    {
      schema: {
        tags, operationId: 'getDashboard', summary: 'The company dashboard',
        params: CompanyParams, querystring: DashboardQuery, response: { 200: Dashboard, ...companyErrors() },
      },
    },
    async (request) => {
      const { companyId } = request.membership
      const days = request.query.days ?? 14
      return dashboards.run(`${companyId} ${rightsKey(request)} ${days}`, () => dashboard(ctx.db, companyId, request.principal.user.id, days))
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
