import type { FastifyInstance } from 'fastify'
import { createMailer } from '../../server/auth/mailer.ts'
import { dummyHash } from '../../server/auth/passwords.ts'
import type { AppContext } from '../../server/context.ts'
import { AppError } from '../../server/errors.ts'
import { requireAuth, requireSession } from '../../server/http/guards.ts'
import { createIdpVerifier, type IdpVerifier, signInWithIdp } from './idp.ts'
import { completePasswordReset, FORGOT_MESSAGE, requestPasswordReset } from './password-reset.ts'
import { updatePreferences, preferencesBody } from './preferences.ts'
import { updateProfile } from './profile.ts'
import { register } from './register.ts'
import * as schema from './schemas.ts'
import { endSessions, refreshSession } from './sessions.ts'
import { signInWithPassword } from './sign-in.ts'
import { getUser } from './users.ts'

const tags = ['accounts']
const perMinute = (max: number) => ({ rateLimit: { max, timeWindow: '1 minute' } })

// Register, sign-in (password and identity provider), refresh, sign-out, /api/me, preferences,
// password reset. Account data is not company data: these writes record no audit event and
// publish no live event.
export async function accountRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const authenticated = { onRequest: requireAuth(ctx) }
  // Computed now, so the first sign-in with an unknown address is not slower than the others.
  void dummyHash()
  const mailer = createMailer(ctx.config.smtp, ctx.config.production, ctx.log)
  const { idpClientId } = ctx.config
  const verifyIdToken: IdpVerifier | null = idpClientId
    ? createIdpVerifier({ clientId: idpClientId, jwksUrl: ctx.config.idpJwksUrl, issuers: ctx.config.idpIssuers }, { log: ctx.log })
    : null

  app.post('/api/register', { schema: { tags, body: schema.registerBody } }, async (request, reply) => {
    const body = request.body as { email: string; password: string; name: string; company?: string | null }
    return reply.status(201).send(await register(ctx, body))
  })

  app.post('/api/login', { schema: { tags, body: schema.loginBody } }, async (request) => {
    const { email, password } = request.body as { email: string; password: string }
    return signInWithPassword(ctx, email, password)
  })

  app.get('/api/auth/config', { schema: { tags } }, async () => ({ idp_client_id: idpClientId }))

  app.post('/api/login/idp', { config: perMinute(10), schema: { tags, body: schema.idpBody } }, async (request) => {
    if (!verifyIdToken) throw new AppError('IDP_DISABLED', 'Identity provider sign-in is not configured')
    const identity = await verifyIdToken((request.body as { credential: string }).credential)
    return signInWithIdp(ctx, identity)
  })

  app.post('/api/refresh', { schema: { tags, body: schema.refreshBody } }, async (request) =>
    refreshSession(ctx, (request.body as { refresh_token: string }).refresh_token),
  )

  // The body is optional: no body (or an empty one, http/json-body.ts) ends every session.
  app.post(
    '/api/logout',
    { ...authenticated, preValidation: requireSession, schema: { tags, body: schema.logoutBody } },
    async (request, reply) => {
      const body = request.body as { refresh_token?: string | null } | null | undefined
      await endSessions(ctx.db, request.principal.user.id, body?.refresh_token ?? null)
      return reply.status(204).send()
    },
  )

  app.get('/api/me', { ...authenticated, schema: { tags } }, async (request) => getUser(ctx.db, request.principal.user.id))

  app.patch('/api/me', { ...authenticated, schema: { tags, body: schema.profileBody } }, async (request) => {
    const user = await updateProfile(ctx.db, request.principal.user.id, request.body as { name?: string; avatar_url?: string | null })
    // Cached principals carry the name; the database's notification may come after the next request.
    ctx.credentials.clear()
    return user
  })

  app.patch('/api/me/preferences', { ...authenticated, schema: { tags, body: preferencesBody } }, async (request) =>
    updatePreferences(ctx.db, request.principal.user.id, request.body as Record<string, unknown>),
  )

  app.post('/api/password/forgot', { config: perMinute(5), schema: { tags, body: schema.forgotBody } }, async (request, reply) => {
    await requestPasswordReset(ctx, mailer, (request.body as { email: string }).email, request.ip)
    return reply.status(202).send({ message: FORGOT_MESSAGE })
  })

  app.post('/api/password/reset', { config: perMinute(10), schema: { tags, body: schema.resetBody } }, async (request) => {
    const { token, password } = request.body as { token: string; password: string }
    await completePasswordReset(ctx, token, password)
    ctx.credentials.clear() // as for a profile change: do not wait for the database's notification
    return { message: 'Password has been reset' }
  })
}
