import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../server/context.ts'

// /api/companies (create, list) and the company itself (get, patch), members.
export async function companyRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  void app
  void ctx
}
