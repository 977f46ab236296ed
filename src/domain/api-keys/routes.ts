import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../server/context.ts'

// Personal API keys: /api/me/api-keys.
export async function apiKeyRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  void app
  void ctx
}
