// Helpers for the account tests: sign-up through the API and requests from a chosen client
// address (the per-address rate limits would otherwise be shared by every test in a file).
import type { FastifyInstance, InjectOptions } from 'fastify'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, type generateKeyPair, type JWK } from 'jose'
import type { Config } from '../../src/server/config.ts'
import { type TestApp, testApp, uniqueEmail } from '../helpers.ts'
import { type SmtpSink, startSmtpSink } from './smtp-sink.ts'

let lastOctet = 0
/** A client address no other test in this process uses. */
export function uniqueIp(): string {
  lastOctet++
  return `10.${process.pid % 250}.${Math.floor(lastOctet / 250)}.${lastOctet % 250}`
}

export async function callFrom(
  app: FastifyInstance,
  ip: string,
  method: InjectOptions['method'],
  url: string,
  options: { token?: string; body?: unknown } = {},
) {
  const response = await app.inject({
    method,
    url,
    remoteAddress: ip,
    headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
    ...(options.body !== undefined ? { payload: options.body as any } : {}),
  })
  return { status: response.statusCode, body: response.body ? JSON.parse(response.body) : null, headers: response.headers }
}

export interface Account {
  id: string
  email: string
  password: string
  access: string
  refresh: string
}

/** Registers through the API (real bcrypt cost) and returns the session. */
export async function signUp(app: FastifyInstance, name = 'Ada Lovelace'): Promise<Account> {
  const email = uniqueEmail('acct')
  const password = 'correct horse battery'
  const r = await app.inject({ method: 'POST', url: '/api/register', payload: { email, password, name } })
  if (r.statusCode !== 201) throw new Error(`register failed: ${r.statusCode} ${r.body}`)
  const body = r.json()
  return { id: body.user.id, email, password, access: body.access_token, refresh: body.refresh_token }
}

/** An app whose mail goes to a real SMTP server (signed in to as `mailer`), with that server. */
export async function mailingApp(webAppUrl: string, overrides: Partial<Config> = {}): Promise<{ t: TestApp; smtp: SmtpSink; close(): Promise<void> }> {
  const smtp = await startSmtpSink({ user: 'mailer', password: 'mail-secret' })
  const t = await testApp({
    ...overrides,
    webAppUrl,
    smtp: { host: '127.0.0.1', port: smtp.port, secure: false, user: 'mailer', password: 'mail-secret', from: 'Shopfloor <no-reply@shopfloor.test>' },
  })
  return {
    t,
    smtp,
    async close() {
      await t.close()
      await smtp.close()
    },
  }
}

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>

/** An identity provider's key set served over HTTP by the test itself, counting how often it is fetched. */
export class JwksServer {
  keys: JWK[] = []
  fetches = 0
  private server = http.createServer((_req, res) => {
    this.fetches++
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ keys: this.keys }))
  })
  url = ''
  async start() {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/certs`
  }
  async publish(kid: string, pair: KeyPair) {
    this.keys.push({ ...(await exportJWK(pair.publicKey)), kid, alg: 'RS256', use: 'sig' })
  }
  close() {
    return new Promise((resolve) => this.server.close(resolve))
  }
}
