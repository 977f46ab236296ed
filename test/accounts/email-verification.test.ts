// An identity-provider sign-in never lands in an account whose owner has not proven the address:
// registration mails a verification link (a real SMTP server), and the first identity-provider
// sign-in to an unverified account revokes its password, sessions, refresh tokens and API keys
// first (a real key set served by the test).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateKeyPair, SignJWT } from 'jose'
import { call, type TestApp } from '../helpers.ts'
import { callFrom, JwksServer, mailingApp, signUp, uniqueIp } from './support.ts'
import type { SmtpSink } from './smtp-sink.ts'

const CLIENT_ID = 'shopfloor-web.apps.example.test'
const ISSUER = 'https://idp.example.test'
const WEB = 'https://app.shopfloor.test'

let jwks: JwksServer
let signing: Awaited<ReturnType<typeof generateKeyPair>>
let t: TestApp
let smtp: SmtpSink
let close: () => Promise<void>

beforeAll(async () => {
  jwks = new JwksServer()
  await jwks.start()
  signing = await generateKeyPair('RS256')
  await jwks.publish('key-1', signing)
  ;({ t, smtp, close } = await mailingApp(WEB, { idpClientId: CLIENT_ID, idpJwksUrl: jwks.url, idpIssuers: [ISSUER] }))
})
afterAll(async () => {
  await close?.()
  await jwks?.close()
})

const idToken = (email: string) =>
  new SignJWT({ email, email_verified: true, name: 'Real Owner' }).setProtectedHeader({ alg: 'RS256', kid: 'key-1' })
    .setSubject('owner').setIssuer(ISSUER).setAudience(CLIENT_ID).setIssuedAt().setExpirationTime('5m').sign(signing.privateKey)
const idpSignIn = async (email: string) => callFrom(t.app, uniqueIp(), 'POST', '/api/login/idp', { body: { credential: await idToken(email) } })

/** The verification token of the link mailed to `to`. */
async function mailedToken(to: string): Promise<string> {
  const mail = await smtp.mailTo(to)
  const link = new RegExp(`${WEB}/verify-email\\?token=([A-Za-z0-9_-]+)`).exec(mail.text)
  expect(link, mail.text).not.toBeNull()
  return link![1]
}

describe('email verification', () => {
  it('registration mails a link; POST /api/verify-email uses it once (204), then 400 INVALID_VERIFICATION_TOKEN', async () => {
    const a = await signUp(t.app)
    const token = await mailedToken(a.email)
    expect((await call(t.app, 'POST', '/api/verify-email', { body: { token } })).status).toBe(204)
    const again = await call(t.app, 'POST', '/api/verify-email', { body: { token } })
    expect(again.status).toBe(400)
    expect(again.body.error.code).toBe('INVALID_VERIFICATION_TOKEN')
    const forged = await call(t.app, 'POST', '/api/verify-email', { body: { token: 'x'.repeat(43) } })
    expect(forged.body.error.code).toBe('INVALID_VERIFICATION_TOKEN')
    const row = await t.ctx.db.one<{ email_verified_at: string | null }>('SELECT email_verified_at FROM users WHERE id = $1', [a.id])
    expect(row!.email_verified_at).not.toBeNull()
    // A proven account keeps its password and sessions through an identity-provider sign-in.
    expect((await idpSignIn(a.email)).body.user.id).toBe(a.id)
    expect((await call(t.app, 'POST', '/api/login', { body: { email: a.email, password: a.password } })).status).toBe(200)
    expect((await call(t.app, 'POST', '/api/refresh', { body: { refresh_token: a.refresh } })).status).toBe(200)
  })

  it('the first identity-provider sign-in to an unverified account revokes its password, sessions, refresh tokens and keys', async () => {
    // Someone registers the address before its owner ever signs in.
    const squatter = await signUp(t.app, 'Squatter')
    const key = await call(t.app, 'POST', '/api/me/api-keys', { token: squatter.access, body: { name: 'backdoor' } })
    expect(key.status).toBe(201)
    // Tokens are compared to the second (as after a password reset).
    await new Promise((r) => setTimeout(r, 1100))

    const owner = await idpSignIn(squatter.email)
    expect(owner.status).toBe(200)
    expect(owner.body.user.id).toBe(squatter.id)
    expect((await call(t.app, 'GET', '/api/me', { token: owner.body.access_token })).status).toBe(200)

    const password = await call(t.app, 'POST', '/api/login', { body: { email: squatter.email, password: squatter.password } })
    expect(password.body.error.code).toBe('INVALID_CREDENTIALS')
    expect((await call(t.app, 'POST', '/api/refresh', { body: { refresh_token: squatter.refresh } })).body.error.code).toBe('INVALID_REFRESH_TOKEN')
    expect((await call(t.app, 'GET', '/api/me', { token: squatter.access })).body.error.code).toBe('INVALID_TOKEN')
    expect((await call(t.app, 'GET', '/api/me', { token: key.body.key })).body.error.code).toBe('INVALID_TOKEN')
    // The squatter's mailed link does not give it back either.
    const token = await mailedToken(squatter.email)
    expect((await call(t.app, 'POST', '/api/verify-email', { body: { token } })).body.error.code).toBe('INVALID_VERIFICATION_TOKEN')
    // A second identity-provider sign-in revokes nothing more.
    const again = await idpSignIn(squatter.email)
    expect((await call(t.app, 'GET', '/api/me', { token: owner.body.access_token })).status).toBe(200)
    expect(again.status).toBe(200)
  })
})
