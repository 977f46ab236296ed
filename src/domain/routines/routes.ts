import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../server/context.ts'

// Routines: CRUD and trigger.
export async function routineRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  void app
  void ctx
}
