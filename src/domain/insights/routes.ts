import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../server/context.ts'

// Dashboard, costs and inbox.
export async function insightRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  void app
  void ctx
}
