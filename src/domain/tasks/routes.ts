import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../server/context.ts'

// Tasks: create, list, get, update, delete.
export async function taskRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  void app
  void ctx
}
