import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../server/context.ts'
import { idParams } from '../companies/json-schema.ts'
import { costs, MONTH_PATTERN } from './costs.ts'
import { DASHBOARD_DAYS, dashboard } from './dashboard.ts'
import { inbox } from './inbox.ts'

const tags = ['insights']
const dashboardQuery = {
  type: 'object',
  properties: { days: { type: 'integer', enum: DASHBOARD_DAYS, default: 14 } },
} as const
const costsQuery = { type: 'object', properties: { month: { type: 'string', pattern: MONTH_PATTERN } } } as const

// Dashboard, costs and inbox: read-only aggregates for any member.
export async function insightRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.get('/dashboard', { schema: { tags, params: idParams(), querystring: dashboardQuery } }, async (request) => {
    const { days } = request.query as { days: number }
    return dashboard(ctx.db, request.membership.companyId, request.principal.user.id, days)
  })

  app.get('/costs', { schema: { tags, params: idParams(), querystring: costsQuery } }, async (request) => {
    const { month } = request.query as { month?: string }
    return costs(ctx.db, request.membership.companyId, month ?? null)
  })

  app.get('/inbox', { schema: { tags, params: idParams() } }, async (request) => inbox(ctx.db, request.membership.companyId))
}
