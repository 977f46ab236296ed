import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../server/context.ts'

// Runs and the runner protocol: list, get, claim, heartbeat, report, cancel, expire-stale.
export async function runRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  void app
  void ctx
}
