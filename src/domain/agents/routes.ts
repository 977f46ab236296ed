import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../server/context.ts'

// Agents: hire, list, get, update, pause, resume, terminate, wake, org chart.
export async function agentRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  void app
  void ctx
}
