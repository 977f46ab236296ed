import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { ApiKey, ApiKeyCreateBody, CreatedApiKey, KeyParams, LegacyKeyParams, LegacyParams } from '../../contract/api-keys.ts'
import { errors, NoContent } from '../../contract/common.ts'
import type { AppContext } from '../../server/context.ts'
import { notFound } from '../../server/errors.ts'
import { requireAuth, requireSession } from '../../server/http/guards.ts'
import { createApiKey, LEGACY_MAX_ACTIVE_KEYS, listApiKeys, MAX_ACTIVE_KEYS, revokeApiKey } from './service.ts'

const tags = ['api-keys']

// Personal API keys: /api/me/api-keys. Listing works with a session or a key; creating and
// revoking need a password session, so a leaked key cannot mint or hide other keys.
//
// The older paths /api/users/{username}/api-keys (username: the caller's email or id) behave
// the same with a limit of 10 active keys; they are kept for old clients and left out of the
// interface description.
export async function apiKeyRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()
  const authenticated = { onRequest: requireAuth(ctx) }
  const sessionOnly = { ...authenticated, preValidation: requireSession }

  const variants = [
    { base: '/api/me/api-keys', legacy: false, params: undefined, keyParams: KeyParams },
    { base: '/api/users/:username/api-keys', legacy: true, params: LegacyParams, keyParams: LegacyKeyParams },
  ] as const
  for (const { base, legacy, params, keyParams } of variants) {
    const owner = (request: FastifyRequest) => (legacy ? ownAccount(request) : request.principal.user.id)
    const doc = (operationId: string, summary: string) => (legacy ? { hide: true } : { operationId, summary })

    app.post(
      base,
      {
        ...sessionOnly,
        schema: {
          tags, ...doc('createApiKey', 'Create an API key (its secret is shown once)'),
          ...(params ? { params } : {}), body: ApiKeyCreateBody, response: { 201: CreatedApiKey, ...errors(400, 401, 403, 404, 409, 422) },
        },
      },
      async (request, reply) => {
        const limit = legacy ? LEGACY_MAX_ACTIVE_KEYS : MAX_ACTIVE_KEYS
        return reply.status(201).send(await createApiKey(ctx.db, owner(request), request.body, limit))
      },
    )

    app.get(
      base,
      {
        ...authenticated,
        schema: {
          tags, ...doc('listApiKeys', "List the caller's active API keys"),
          ...(params ? { params } : {}), response: { 200: Type.Array(ApiKey), ...errors(401, 404) },
        },
      },
      async (request) => listApiKeys(ctx.db, owner(request)),
    )

    app.delete(
      `${base}/:key_id`,
      {
        ...sessionOnly,
        schema: {
          tags, ...doc('revokeApiKey', 'Revoke an API key'),
          params: keyParams, response: { 204: NoContent, ...errors(401, 403, 404, 422) },
        },
      },
      async (request, reply) => {
        await revokeApiKey(ctx.db, owner(request), request.params.key_id)
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
