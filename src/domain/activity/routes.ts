import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../server/context.ts'
import { listActivity } from './service.ts'

const query = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
    // A row's created_at; like every timestamp, one without an offset is read as UTC.
    before: { type: 'string', format: 'iso-date-time' },
  },
} as const

// GET /activity: the audit trail, newest first, paged by `before` (a row's created_at).
export async function activityRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.get('/activity', { schema: { tags: ['activity'], querystring: query } }, async (request) => {
    const { limit, before } = request.query as { limit: number; before?: string }
    return listActivity(ctx.db, request.membership.companyId, limit, before ?? null)
  })
}
