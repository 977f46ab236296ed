import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AppContext } from '../../server/context.ts'
import { notFound } from '../../server/errors.ts'
import { requireAuth, requireSession } from '../../server/http/guards.ts'
import { createApiKey, LEGACY_MAX_ACTIVE_KEYS, listApiKeys, MAX_ACTIVE_KEYS, revokeApiKey } from './service.ts'

const tags = ['api-keys']

const createBody = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    expires_in_days: { type: ['integer', 'null'], minimum: 1, maximum: 3650 },
  },
} as const

const keyId = { type: 'string', format: 'uuid' } as const

type CreateBody = { name: string; expires_in_days?: number | null }

// Personal API keys: /api/me/api-keys. Listing works with a session or a key; creating and
// revoking need a password session, so a leaked key cannot mint or hide other keys.
//
// The older paths /api/users/{username}/api-keys (username: the caller's email or id) behave
// the same with a limit of 10 active keys; they are kept for old clients and left out of the
// interface description.
export async function apiKeyRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const authenticated = { onRequest: requireAuth(ctx) }
  const sessionOnly = { ...authenticated, preValidation: requireSession }

  for (const base of ['/api/me/api-keys', '/api/users/:username/api-keys']) {
    const legacy = base.includes(':username')
    const owner = (request: FastifyRequest) => (legacy ? ownAccount(request) : request.principal.user.id)
    const params = (extra: Record<string, unknown> = {}) => ({
      type: 'object',
      properties: { ...(legacy ? { username: { type: 'string' } } : {}), ...extra },
    })
    const hide = legacy ? { hide: true } : {}

    app.post(base, { ...sessionOnly, schema: { tags, ...hide, params: params(), body: createBody } as any }, async (request, reply) => {
      const limit = legacy ? LEGACY_MAX_ACTIVE_KEYS : MAX_ACTIVE_KEYS
      return reply.status(201).send(await createApiKey(ctx.db, owner(request), request.body as CreateBody, limit))
    })

    app.get(base, { ...authenticated, schema: { tags, ...hide, params: params() } as any }, async (request) =>
      listApiKeys(ctx.db, owner(request)),
    )

    app.delete(
      `${base}/:key_id`,
      { ...sessionOnly, schema: { tags, ...hide, params: { ...params({ key_id: keyId }), required: ['key_id'] } } as any },
      async (request, reply) => {
        await revokeApiKey(ctx.db, owner(request), (request.params as { key_id: string }).key_id)
        // Also notified by the database, but the next request on this process may come first.
        ctx.credentials.clear()
        return reply.status(204).send()
      },
    )
  }
}

/** On the older paths, `username` must name the caller (email, any case, or id): keys are personal. */
function ownAccount(request: FastifyRequest): string {
  const { username } = request.params as { username: string }
  const { user } = request.principal
  if (username.toLowerCase() !== user.email.toLowerCase() && username !== user.id) throw notFound('User')
  return user.id
}
