import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../server/context.ts'
import { requireAuth, requireSession } from '../../server/http/guards.ts'
import { createApiKey, listApiKeys, revokeApiKey } from './service.ts'

const tags = ['api-keys']

const createBody = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    expires_in_days: { type: ['integer', 'null'], minimum: 1, maximum: 3650 },
  },
} as const

const keyParams = {
  type: 'object',
  required: ['key_id'],
  properties: { key_id: { type: 'string', format: 'uuid' } },
} as const

// Personal API keys: /api/me/api-keys. Listing works with a session or a key; creating and
// revoking need a password session, so a leaked key cannot mint or hide other keys.
export async function apiKeyRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const authenticated = { onRequest: requireAuth(ctx) }
  const sessionOnly = { ...authenticated, preValidation: requireSession }

  app.post('/api/me/api-keys', { ...sessionOnly, schema: { tags, body: createBody } }, async (request, reply) => {
    const body = request.body as { name: string; expires_in_days?: number | null }
    return reply.status(201).send(await createApiKey(ctx.db, request.principal.user.id, body))
  })

  app.get('/api/me/api-keys', { ...authenticated, schema: { tags } }, async (request) => listApiKeys(ctx.db, request.principal.user.id))

  app.delete('/api/me/api-keys/:key_id', { ...sessionOnly, schema: { tags, params: keyParams } }, async (request, reply) => {
    await revokeApiKey(ctx.db, request.principal.user.id, (request.params as { key_id: string }).key_id)
    return reply.status(204).send()
  })
}
