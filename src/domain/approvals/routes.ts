import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../server/context.ts'

// Approvals: list, get, approve, reject.
export async function approvalRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  void app
  void ctx
}
