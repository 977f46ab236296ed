import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import {
  AccessToken, AuthConfig, ForgotBody, IdpBody, LoginBody, LogoutBody, Message, PreferencesBody, PreferencesRecord,
  ProfileBody, RefreshBody, RegisterBody, ResetBody, Session, User, VerifyEmailBody,
} from '../../contract/accounts.ts'
import { errors, NoContent } from '../../contract/common.ts'
import { HashQueue } from '../../server/auth/hash-queue.ts'
import { createMailer } from '../../server/auth/mailer.ts'
import { dummyHash } from '../../server/auth/passwords.ts'
import type { AppContext } from '../../server/context.ts'
import { AppError } from '../../server/errors.ts'
import { requireAuth, requireSession } from '../../server/http/guards.ts'
import { sendVerification, verifyEmail } from './email-verification.ts'
import { createIdpVerifier, type IdpVerifier, signInWithIdp } from './idp.ts'
import { completePasswordReset, FORGOT_MESSAGE, requestPasswordReset } from './password-reset.ts'
import { updatePreferences } from './preferences.ts'
import { updateProfile } from './profile.ts'
import { register } from './register.ts'
import { endSessions, refreshSession } from './sessions.ts'
import { signInWithPassword } from './sign-in.ts'
import { getUser } from './users.ts'

const tags = ['accounts']
const perMinute = (max: number) => ({ rateLimit: { max, timeWindow: '1 minute' } })
/** Routes anyone may call: the document marks them as needing no credential. */
const open = { security: [] }

// Register, sign-in (password and identity provider), refresh, sign-out, /api/me, preferences,
// password reset. Account data is not company data: these writes record no audit event and
// publish no live event.
export async function accountRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()
  const authenticated = { onRequest: requireAuth(ctx) }
  // Computed now, so the first sign-in with an unknown address is not slower than the others.
  void dummyHash(ctx.config.passwordCost)
  const mailer = createMailer(ctx.config.smtp, ctx.config.production, ctx.log)
  // Every route that hashes a password takes its turn by client address.
  const hashing = new HashQueue()
  const { idpClientId } = ctx.config
  const verifyIdToken: IdpVerifier | null = idpClientId
    ? createIdpVerifier({ clientId: idpClientId, jwksUrl: ctx.config.idpJwksUrl, issuers: ctx.config.idpIssuers }, { log: ctx.log })
    : null

  app.post(
    '/api/register',
    {
      schema: {
        tags, ...open, operationId: 'register', summary: 'Create an account and sign in',
        body: RegisterBody, response: { 201: Session, ...errors(400, 409, 422) },
      },
    },
    async (request, reply) => {
      const { verification, ...session } = await hashing.run(request.ip, () => register(ctx, request.body))
      sendVerification(ctx, mailer, session.user.email, verification)
      return reply.status(201).send(session)
    },
  )

  app.post(
    '/api/login',
    {
      schema: {
        tags, ...open, operationId: 'login', summary: 'Sign in with email and password',
        body: LoginBody, response: { 200: Session, ...errors(400, 401, 422) },
      },
    },
    async (request) => hashing.run(request.ip, () => signInWithPassword(ctx, request.body.email, request.body.password)),
  )

  app.get(
    '/api/auth/config',
    { schema: { tags, ...open, operationId: 'getAuthConfig', summary: 'Sign-in options for clients', response: { 200: AuthConfig, ...errors(400) } } },
    async () => ({ idp_client_id: idpClientId, has_accounts: (await ctx.db.one<{ any: boolean }>('SELECT EXISTS (SELECT 1 FROM users) AS any'))!.any }),
  )

  app.post(
    '/api/login/idp',
    {
      config: perMinute(10),
      schema: {
        tags, ...open, operationId: 'loginWithIdp', summary: 'Sign in with an identity provider ID token',
        body: IdpBody, response: { 200: Session, ...errors(401, 404, 422, 429) },
      },
    },
    async (request) => {
      if (!verifyIdToken) throw new AppError('IDP_DISABLED', 'Identity provider sign-in is not configured')
      return signInWithIdp(ctx, await verifyIdToken(request.body.credential))
    },
  )

  app.post(
    '/api/refresh',
    {
      schema: {
        tags, ...open, operationId: 'refresh', summary: 'A new access token for a refresh token',
        body: RefreshBody, response: { 200: AccessToken, ...errors(401, 422) },
      },
    },
    async (request) => refreshSession(ctx, request.body.refresh_token),
  )

  // The body is optional: no body (or an empty one, http/json-body.ts) ends every session.
  app.post(
    '/api/logout',
    {
      ...authenticated,
      preValidation: requireSession,
      schema: {
        tags, operationId: 'logout', summary: 'Sign out', description: 'Revokes the given refresh token, or every one of the caller without a body.',
        body: LogoutBody, response: { 204: NoContent, ...errors(401, 403, 422) },
      },
    },
    async (request, reply) => {
      await endSessions(ctx.db, request.principal.user.id, request.body?.refresh_token ?? null)
      return reply.status(204).send()
    },
  )

  app.get(
    '/api/me',
    { ...authenticated, schema: { tags, operationId: 'getMe', summary: 'The signed-in user', response: { 200: User, ...errors(401) } } },
    async (request) => (await getUser(ctx.db, request.principal.user.id))!,
  )

  app.patch(
    '/api/me',
    {
      ...authenticated,
      schema: { tags, operationId: 'updateMe', summary: 'Change name or avatar', body: ProfileBody, response: { 200: User, ...errors(401, 422) } },
    },
    async (request) => {
      const user = await updateProfile(ctx.db, request.principal.user.id, request.body)
      // Cached principals carry the name; the database's notification may come after the next request.
      ctx.credentials.clear()
      return user
    },
  )

  app.patch(
    '/api/me/preferences',
    {
      ...authenticated,
      schema: {
        tags, operationId: 'updatePreferences', summary: 'Change preferences',
        description: 'Objects merge key by key, lists replace, null removes a setting; answers the whole merged document.',
        body: PreferencesBody, response: { 200: PreferencesRecord, ...errors(401, 422) },
      },
    },
    async (request) => updatePreferences(ctx.db, request.principal.user.id, request.body),
  )

  app.post(
    '/api/password/forgot',
    {
      config: perMinute(5),
      schema: {
        tags, ...open, operationId: 'forgotPassword', summary: 'Email a password reset link',
        description: 'Answers the same whether or not the account exists.',
        body: ForgotBody, response: { 202: Message, ...errors(422, 429) },
      },
    },
    async (request, reply) => {
      await requestPasswordReset(ctx, mailer, request.body.email, request.ip)
      return reply.status(202).send({ message: FORGOT_MESSAGE })
    },
  )

  app.post(
    '/api/password/reset',
    {
      config: perMinute(10),
      schema: {
        tags, ...open, operationId: 'resetPassword', summary: 'Set a new password with a reset token',
        body: ResetBody, response: { 200: Message, ...errors(400, 422, 429) },
      },
    },
    async (request) => {
      await hashing.run(request.ip, () => completePasswordReset(ctx, request.body.token, request.body.password))
      ctx.credentials.clear() // as for a profile change: do not wait for the database's notification
      return { message: 'Password has been reset' }
    },
  )

  app.post(
    '/api/verify-email',
    {
      config: perMinute(10),
      schema: {
        tags, ...open, operationId: 'verifyEmail', summary: 'Confirm an account\'s email address with the emailed link\'s token',
        body: VerifyEmailBody, response: { 204: NoContent, ...errors(400, 422, 429) },
      },
    },
    async (request, reply) => {
      await verifyEmail(ctx, request.body.token)
      return reply.status(204).send()
    },
  )
}
