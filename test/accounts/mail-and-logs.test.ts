import { Writable } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { createMailer, transportOptions } from '../../src/server/auth/mailer.ts'
import { randomToken, sha256 } from '../../src/server/auth/tokens.ts'
import { buildApp } from '../../src/api/app.ts'
import type { SmtpConfig } from '../../src/server/config.ts'
import { createLogger } from '../../src/server/logger.ts'
import { createContext } from '../../src/server/start.ts'
import { testConfig, testDb, uniqueEmail } from '../helpers.ts'
import { startSmtpSink } from './smtp-sink.ts'
import { callFrom, uniqueIp } from './support.ts'

const NO_SMTP: SmtpConfig = { host: null, port: 587, secure: false, user: null, password: null, from: null }
const WEB_APP = 'https://app.shopfloor.test'

/** A whole app whose log lines are kept in memory. */
async function appWithLog(production: boolean) {
  const lines: string[] = []
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk))
      done()
    },
  })
  const config = testConfig({ production, logLevel: 'debug', webAppUrl: WEB_APP, smtp: NO_SMTP })
  const db = await testDb()
  const ctx = await createContext(config, createLogger(config, destination), { db })
  const app = await buildApp(ctx)
  await app.ready()
  return { app, ctx, lines, close: async () => (await app.close(), await db.close()) }
}

const opened: { close(): Promise<unknown> }[] = []
afterAll(async () => {
  for (const o of opened) await o.close()
})

async function settle() {
  // The reset email is sent in the background; give it a moment to be logged.
  await new Promise((r) => setTimeout(r, 100))
}

describe('email without SMTP settings', () => {
  it('outside production logs the message with the link', async () => {
    const env = await appWithLog(false)
    opened.push(env)
    const email = uniqueEmail('devmail')
    await callFrom(env.app, uniqueIp(), 'POST', '/api/register', { body: { email, password: 'password123', name: 'Dev' } })
    expect((await callFrom(env.app, uniqueIp(), 'POST', '/api/password/forgot', { body: { email } })).status).toBe(202)
    await settle()
    const line = env.lines.find((l) => l.includes('/reset-password?token='))
    expect(line).toBeDefined()
    const token = new RegExp(`${WEB_APP}/reset-password\\?token=([A-Za-z0-9_-]+)`).exec(line!)![1]
    const stored = await env.ctx.db.one('SELECT 1 AS ok FROM password_resets WHERE token_hash = $1', [sha256(token)])
    expect(stored).toEqual({ ok: 1 })
  })

  it('needs host, user and password: a host alone sends nothing and logs instead', async () => {
    const lines: string[] = []
    const log = createLogger({ production: false, logLevel: 'info' }, { write: (l: string) => void lines.push(l) })
    await createMailer({ ...NO_SMTP, host: '127.0.0.1', port: 1 }, false, log).send({ to: 'a@example.test', subject: 's', text: 'body-text' })
    expect(lines.join('')).toContain('body-text')
  })
})

describe('production logs', () => {
  it('carry no password, token, key or reset link; a missing SMTP setup is only a warning', async () => {
    const env = await appWithLog(true)
    opened.push(env)
    const ip = uniqueIp()
    const email = uniqueEmail('prod')
    const password = 'very secret password'
    const reg = await callFrom(env.app, ip, 'POST', '/api/register', { body: { email, password, name: 'Prod' } })
    const login = await callFrom(env.app, ip, 'POST', '/api/login', { body: { email, password } })
    await callFrom(env.app, ip, 'POST', '/api/login', { body: { email, password: 'a wrong secret' } })
    await callFrom(env.app, ip, 'POST', '/api/refresh', { body: { refresh_token: login.body.refresh_token } })
    const key = await callFrom(env.app, ip, 'POST', '/api/me/api-keys', { token: login.body.access_token, body: { name: 'k' } })
    await callFrom(env.app, ip, 'GET', '/api/me', { token: key.body.key })
    expect((await callFrom(env.app, ip, 'POST', '/api/password/forgot', { body: { email } })).status).toBe(202)
    await settle()
    // A reset through a link whose token we know (the emailed one is never visible here).
    const resetToken = randomToken(32)
    await env.ctx.db.query(
      `INSERT INTO password_resets (user_id, token_hash, expires_at) VALUES ($1, $2, now() + interval '5 minutes')`,
      [reg.body.user.id, sha256(resetToken)],
    )
    const newPassword = 'another very secret'
    expect((await callFrom(env.app, ip, 'POST', '/api/password/reset', { body: { token: resetToken, password: newPassword } })).status).toBe(200)
    // A link in the query string of a request is not logged either.
    await callFrom(env.app, ip, 'GET', `/reset-password?token=${resetToken}`)

    const all = env.lines.join('\n')
    expect(env.lines.length).toBeGreaterThan(10)
    for (const secret of [password, 'a wrong secret', newPassword, reg.body.access_token, reg.body.refresh_token,
      login.body.access_token, login.body.refresh_token, key.body.key, resetToken, 'reset-password?token=']) {
      expect(all.includes(secret), `log contains ${secret.slice(0, 12)}...`).toBe(false)
    }
    const warning = env.lines.map((l) => JSON.parse(l)).find((l) => l.msg?.includes('SMTP is not configured'))
    expect(warning).toMatchObject({ level: 40, to: email })
  })
})

describe('SMTP transport', () => {
  it('uses a 15 second connection timeout', () => {
    const smtp = { host: 'mail.example.test', port: 587, secure: false, user: 'u', password: 'p', from: null }
    expect(transportOptions(smtp)).toMatchObject({ connectionTimeout: 15_000, secure: false, auth: { user: 'u', pass: 'p' } })
  })

  it('SMTP_SECURE=true speaks implicit TLS from the first byte', async () => {
    const sink = await startSmtpSink({ user: 'tls-user', password: 'tls-pass', secure: true })
    // The test server's certificate is self-signed.
    const previous = process.env.NODE_TLS_REJECT_UNAUTHORIZED
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0'
    try {
      const log = createLogger({ production: false, logLevel: 'silent' })
      const smtp = { host: '127.0.0.1', port: sink.port, secure: true, user: 'tls-user', password: 'tls-pass', from: 'ops@shopfloor.test' }
      await createMailer(smtp, false, log).send({ to: 'tls@example.test', subject: 'hello', text: 'over TLS' })
      const mail = await sink.mailTo('tls@example.test')
      expect(mail).toMatchObject({ secure: true, user: 'tls-user', from: 'ops@shopfloor.test' })
      expect(mail.text).toContain('over TLS')
    } finally {
      if (previous === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED
      else process.env.NODE_TLS_REJECT_UNAUTHORIZED = previous
      await sink.close()
    }
  })
})
