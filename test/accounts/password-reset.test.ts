import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SignJWT } from 'jose'
import { FORGOT_MESSAGE } from '../../src/domain/accounts/password-reset.ts'
import { sha256 } from '../../src/server/auth/tokens.ts'
import { call, type TestApp, uniqueEmail } from '../helpers.ts'
import { type SmtpSink, subjectOf } from './smtp-sink.ts'
import { callFrom, mailingApp, signUp, uniqueIp } from './support.ts'

const WEB_APP = 'https://app.shopfloor.test'
/** A new account's first mail asks to verify its address; these tests read the reset mails. */
const RESET_SUBJECT = /^Reset your Shopfloor password$/
let t: TestApp
let smtp: SmtpSink
let close: () => Promise<void>

beforeAll(async () => {
  ;({ t, smtp, close } = await mailingApp(WEB_APP))
})
afterAll(async () => {
  await close?.()
})

/** Asks for a link from a fresh address and returns the token that arrives by email. */
async function emailedToken(email: string): Promise<string> {
  const before = smtp.messages.length
  const r = await callFrom(t.app, uniqueIp(), 'POST', '/api/password/forgot', { body: { email } })
  expect(r.status).toBe(202)
  const mail = await waitForNewMail(email, before)
  return linkToken(mail.text)
}

async function waitForNewMail(email: string, before: number) {
  for (let i = 0; i < 100; i++) {
    const found = smtp.messages.slice(before).find((m) => m.to.includes(email) && RESET_SUBJECT.test(subjectOf(m.text)))
    if (found) return found
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`no new mail to ${email}`)
}

function linkToken(text: string): string {
  const match = new RegExp(`${WEB_APP.replace(/\./g, '\\.')}/reset-password\\?token=([A-Za-z0-9_-]+)`).exec(text)
  if (!match) throw new Error(`no reset link in:\n${text}`)
  return match[1]
}

const reset = (token: string, password: string) =>
  callFrom(t.app, uniqueIp(), 'POST', '/api/password/reset', { body: { token, password } })

describe('POST /api/password/forgot', () => {
  it('mails a reset link through SMTP; the token is 32 random bytes stored only as SHA-256 with the address', async () => {
    const a = await signUp(t.app)
    const ip = uniqueIp()
    const r = await callFrom(t.app, ip, 'POST', '/api/password/forgot', { body: { email: a.email.toUpperCase() } })
    expect(r.status).toBe(202)
    expect(r.body).toEqual({ message: FORGOT_MESSAGE })
    const mail = await smtp.mailTo(a.email, undefined, RESET_SUBJECT)
    expect(mail.user).toBe('mailer') // signed in with SMTP_USER / SMTP_PASSWORD
    expect(mail.from).toBe('no-reply@shopfloor.test')
    const token = linkToken(mail.text)
    expect(Buffer.from(token, 'base64url')).toHaveLength(32)
    const rows = await t.ctx.db.many(
      `SELECT token_hash, requested_ip, round(extract(epoch FROM expires_at - created_at) / 60) AS minutes
         FROM password_resets WHERE user_id = $1`,
      [a.id],
    )
    expect(rows).toEqual([{ token_hash: sha256(token), requested_ip: ip, minutes: 30 }])
  })

  it('answers an unknown email with the same 202 and sends nothing', async () => {
    const email = uniqueEmail('ghost')
    const r = await callFrom(t.app, uniqueIp(), 'POST', '/api/password/forgot', { body: { email } })
    expect(r.status).toBe(202)
    expect(r.body).toEqual({ message: FORGOT_MESSAGE })
    const known = await signUp(t.app)
    expect((await callFrom(t.app, uniqueIp(), 'POST', '/api/password/forgot', { body: { email: known.email } })).body).toEqual(r.body)
    await smtp.mailTo(known.email, undefined, RESET_SUBJECT) // the known address gets its mail...
    expect(smtp.messages.some((m) => m.to.includes(email))).toBe(false) // ...the unknown one never does
  })

  it('sends at most one link per account per 60 seconds; a later request voids the older link', async () => {
    const a = await signUp(t.app)
    const first = await emailedToken(a.email)
    const again = await callFrom(t.app, uniqueIp(), 'POST', '/api/password/forgot', { body: { email: a.email } })
    expect(again.status).toBe(202)
    expect((await t.ctx.db.many('SELECT id FROM password_resets WHERE user_id = $1', [a.id])).length).toBe(1)

    await t.ctx.db.query(`UPDATE password_resets SET created_at = created_at - interval '61 seconds' WHERE user_id = $1`, [a.id])
    const second = await emailedToken(a.email)
    expect(second).not.toBe(first)
    const old = await reset(first, 'new password 1')
    expect(old.status).toBe(400)
    expect(old.body.error.code).toBe('INVALID_RESET_TOKEN')
    expect((await reset(second, 'new password 2')).status).toBe(200)
  })

  it('simultaneous requests for one account still make one link', async () => {
    const a = await signUp(t.app)
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => callFrom(t.app, uniqueIp(), 'POST', '/api/password/forgot', { body: { email: a.email } })),
    )
    expect(answers.map((r) => r.status)).toEqual([202, 202, 202, 202, 202])
    expect(await t.ctx.db.many('SELECT id FROM password_resets WHERE user_id = $1', [a.id])).toHaveLength(1)
  })

  it('is limited to 5 requests per minute per client address', async () => {
    const ip = uniqueIp()
    for (let i = 0; i < 5; i++) {
      expect((await callFrom(t.app, ip, 'POST', '/api/password/forgot', { body: { email: uniqueEmail() } })).status).toBe(202)
    }
    const limited = await callFrom(t.app, ip, 'POST', '/api/password/forgot', { body: { email: uniqueEmail() } })
    expect(limited.status).toBe(429)
    expect(limited.body.error).toMatchObject({ code: 'RATE_LIMITED', message: 'Too many requests: 5 per 1 minute' })
    expect((await callFrom(t.app, uniqueIp(), 'POST', '/api/password/forgot', { body: { email: uniqueEmail() } })).status).toBe(202)
  })
})

describe('POST /api/password/reset', () => {
  it('sets the new password; the link works once', async () => {
    const a = await signUp(t.app)
    const token = await emailedToken(a.email)
    const r = await reset(token, 'brand new password')
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ message: expect.any(String) })
    expect((await call(t.app, 'POST', '/api/login', { body: { email: a.email, password: a.password } })).status).toBe(401)
    expect((await call(t.app, 'POST', '/api/login', { body: { email: a.email, password: 'brand new password' } })).status).toBe(200)
    const again = await reset(token, 'another password')
    expect(again.status).toBe(400)
    expect(again.body.error.code).toBe('INVALID_RESET_TOKEN')
  })

  it('rejects an expired link and an unknown token with 400 INVALID_RESET_TOKEN', async () => {
    const a = await signUp(t.app)
    const token = await emailedToken(a.email)
    await t.ctx.db.query(`UPDATE password_resets SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [a.id])
    expect((await reset(token, 'brand new password')).body.error.code).toBe('INVALID_RESET_TOKEN')
    expect((await reset('x'.repeat(43), 'brand new password')).body.error.code).toBe('INVALID_RESET_TOKEN')
  })

  it('validates token (20 to 200) and password (8 to 128)', async () => {
    for (const body of [
      { token: 'x'.repeat(19), password: 'long enough' },
      { token: 'x'.repeat(201), password: 'long enough' },
      { token: 'x'.repeat(43), password: 'short' },
      { token: 'x'.repeat(43), password: 'p'.repeat(129) },
    ]) {
      expect((await callFrom(t.app, uniqueIp(), 'POST', '/api/password/reset', { body })).status).toBe(422)
    }
  })

  it('revokes refresh tokens, rejects older access tokens and clears the lockout', async () => {
    const a = await signUp(t.app)
    const secret = new TextEncoder().encode(t.ctx.config.jwtSecret)
    const older = await new SignJWT({ type: 'access' }).setProtectedHeader({ alg: 'HS256' }).setSubject(a.id)
      .setIssuedAt(Math.floor(Date.now() / 1000) - 5).setExpirationTime('10m').sign(secret)
    expect((await call(t.app, 'GET', '/api/me', { token: older })).status).toBe(200)
    await t.ctx.db.query(`UPDATE users SET failed_logins = 5, locked_until = now() + interval '30 minutes' WHERE id = $1`, [a.id])
    expect((await call(t.app, 'POST', '/api/login', { body: { email: a.email, password: a.password } })).body.error.code).toBe('ACCOUNT_LOCKED')

    expect((await reset(await emailedToken(a.email), 'after the reset')).status).toBe(200)

    expect((await call(t.app, 'GET', '/api/me', { token: older })).body.error.code).toBe('INVALID_TOKEN')
    expect((await call(t.app, 'POST', '/api/refresh', { body: { refresh_token: a.refresh } })).body.error.code).toBe('INVALID_REFRESH_TOKEN')
    const login = await call(t.app, 'POST', '/api/login', { body: { email: a.email, password: 'after the reset' } })
    expect(login.status).toBe(200)
    expect((await call(t.app, 'GET', '/api/me', { token: login.body.access_token })).status).toBe(200)
    expect(await t.ctx.db.one('SELECT failed_logins, locked_until FROM users WHERE id = $1', [a.id])).toEqual({ failed_logins: 0, locked_until: null })
  })

  it('a key created before the reset stops working, leaves the list and frees its name', async () => {
    const a = await signUp(t.app)
    const key = (await call(t.app, 'POST', '/api/me/api-keys', { token: a.access, body: { name: 'ci' } })).body
    // Keys are compared to the reset by the second: make this one clearly older.
    await t.ctx.db.query(`UPDATE api_keys SET created_at = created_at - interval '2 seconds' WHERE id = $1`, [key.id])
    expect((await call(t.app, 'GET', '/api/me', { token: key.key })).status).toBe(200)

    expect((await reset(await emailedToken(a.email), 'after the reset')).status).toBe(200)

    const rejected = await call(t.app, 'GET', '/api/me', { token: key.key })
    expect(rejected.status).toBe(401)
    expect(rejected.body.error.code).toBe('INVALID_TOKEN')
    expect((await t.ctx.db.one('SELECT revoked_at FROM api_keys WHERE id = $1', [key.id]))!.revoked_at).not.toBeNull()
    const session = (await call(t.app, 'POST', '/api/login', { body: { email: a.email, password: 'after the reset' } })).body.access_token
    expect((await call(t.app, 'GET', '/api/me/api-keys', { token: session })).body).toEqual([])
    const fresh = await call(t.app, 'POST', '/api/me/api-keys', { token: session, body: { name: 'ci' } })
    expect(fresh.status).toBe(201)
    expect((await call(t.app, 'GET', '/api/me', { token: fresh.body.key })).status).toBe(200)
  })

  it('is limited to 10 requests per minute per client address', async () => {
    const ip = uniqueIp()
    const body = { token: 'y'.repeat(43), password: 'whatever123' }
    for (let i = 0; i < 10; i++) expect((await callFrom(t.app, ip, 'POST', '/api/password/reset', { body })).status).toBe(400)
    const limited = await callFrom(t.app, ip, 'POST', '/api/password/reset', { body })
    expect(limited.status).toBe(429)
    expect(limited.body.error).toMatchObject({ code: 'RATE_LIMITED', message: 'Too many requests: 10 per 1 minute' })
  })
})
