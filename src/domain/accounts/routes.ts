import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../server/context.ts'

// Register, sign-in, refresh, sign-out, /api/me, preferences, password reset, identity-provider sign-in.
export async function accountRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  void app
  void ctx
}
