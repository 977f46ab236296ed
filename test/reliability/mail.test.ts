// Email through a plain SMTP server (AUTH PLAIN/LOGIN, no STARTTLS) in production, and what
// happens when a message cannot be sent: an error in the log (never the link) and more attempts.
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'
import { describe, expect, it } from 'vitest'
import { createMailer } from '../../src/server/auth/mailer.ts'
import { createLogger } from '../../src/server/logger.ts'
import { startSmtpSink } from '../accounts/smtp-sink.ts'
import { callFrom, signUp, uniqueIp } from '../accounts/support.ts'
import { buildApp } from '../../src/api/app.ts'
import { createContext } from '../../src/server/start.ts'
import { testConfig, testDb } from '../helpers.ts'

function capturedLog() {
  const lines: string[] = []
  const log = createLogger({ production: true, logLevel: 'info' }, { write: (l: string) => void lines.push(l) })
  return { log, lines, text: () => lines.join('') }
}

const waitFor = async (check: () => boolean, what: string, timeoutMs = 15_000) => {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('password reset mail in production over plain SMTP', () => {
  it('arrives, and the log says it was sent without the link', async () => {
    const sink = await startSmtpSink({ user: 'mailer', password: 'mail-secret' })
    const { log, text } = capturedLog()
    const config = testConfig({
      production: true,
      smtp: { host: '127.0.0.1', port: sink.port, secure: false, user: 'mailer', password: 'mail-secret', from: null },
    })
    const db = await testDb()
    const ctx = await createContext(config, log, { db })
    const app = await buildApp(ctx)
    try {
      const { email } = await signUp(app)
      const r = await callFrom(app, uniqueIp(), 'POST', '/api/password/forgot', { body: { email } })
      expect(r.status).toBe(202)
      const mail = await sink.mailTo(email, 20_000)
      expect(mail.user).toBe('mailer')
      expect(mail.from).toMatch(/@/)
      const token = /token=([^\s&]+)/.exec(mail.text)![1]
      await waitFor(() => text().includes('email sent'), 'the log line')
      expect(text()).not.toContain(decodeURIComponent(token))
    } finally {
      await app.close()
      await ctx.bus.close()
      await db.close()
      await sink.close()
    }
  })
})

describe('a message that cannot be sent', () => {
  it('is logged as an error without its text and tried again until the server takes it', async () => {
    let refusals = 1
    const received: string[] = []
    const server = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      authMethods: ['PLAIN', 'LOGIN'],
      logger: false,
      onAuth(auth, _session, callback) {
        if (refusals-- > 0) return callback(Object.assign(new Error('Try again later'), { responseCode: 454 }))
        callback(null, { user: auth.username })
      },
      onData(stream, _session, callback) {
        let data = ''
        stream.on('data', (d: Buffer) => (data += d))
        stream.on('end', () => {
          received.push(data)
          callback()
        })
      },
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.server.address() as AddressInfo).port
    const { log, lines, text } = capturedLog()
    try {
      const smtp = { host: '127.0.0.1', port, secure: false, user: 'mailer@shopfloor.test', password: 'p', from: null }
      await createMailer(smtp, true, log, { retryDelaysMs: [100, 100] }).send({ to: 'a@example.test', subject: 's', text: 'secret-link-123' })
      expect(received).toHaveLength(1)
      const errors = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 50)
      expect(errors).toHaveLength(1)
      expect(errors[0]).toMatchObject({ msg: 'email could not be sent; retrying', to: 'a@example.test', attempt: 1 })
      expect(text()).not.toContain('secret-link-123')
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })

  it('a server that accepts the connection and never greets is an error within the greeting timeout, not a silent hang', async () => {
    const silent = net.createServer(() => {}) // accepts, says nothing
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const port = (silent.address() as AddressInfo).port
    const { log, lines } = capturedLog()
    try {
      const smtp = { host: '127.0.0.1', port, secure: false, user: 'mailer', password: 'p', from: null }
      const sending = createMailer(smtp, true, log, { retryDelaysMs: [100], greetingTimeoutMs: 500 }).send({ to: 'b@example.test', subject: 's', text: 'x' })
      await expect(sending).rejects.toThrow()
      await waitFor(() => lines.some((l) => l.includes('giving up')), 'the final error')
      expect(lines.filter((l) => JSON.parse(l).level === 50)).toHaveLength(2)
    } finally {
      silent.close()
    }
  })
})
