import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../context.ts'

// GET /api/companies/{company_id}/events: the server-sent event stream.
export async function eventRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  void app
  void ctx
}
