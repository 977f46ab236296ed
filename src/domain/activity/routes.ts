import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../server/context.ts'
import { listActivity } from './service.ts'

const query = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
    before: { type: 'string', format: 'date-time' },
  },
} as const

// GET /activity: the audit trail, newest first, paged by `before` (a row's created_at).
export async function activityRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.get('/activity', { schema: { tags: ['activity'], querystring: query } }, async (request) => {
    const { limit, before } = request.query as { limit: number; before?: string }
    return listActivity(ctx.db, request.membership.companyId, limit, before ?? null)
  })
}
