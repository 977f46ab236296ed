import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../server/context.ts'

// Projects.
export async function projectRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  void app
  void ctx
}
