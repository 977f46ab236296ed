import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../server/context.ts'

// Task comments.
export async function commentRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  void app
  void ctx
}
