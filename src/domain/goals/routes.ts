import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../server/context.ts'

// Goals.
export async function goalRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  void app
  void ctx
}
