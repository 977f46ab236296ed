// Limits that keep one member, agent or stranger from stalling everybody else, over real sockets:
// headers and bodies that trickle in are cut, an import's turn is one person's, password hashing
// is queued per client address, and oversized text is 413 PAYLOAD_TOO_LARGE naming the field.
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createUser, type TestApp, testApp, type TestUser, waitFor } from '../helpers.ts'
import { callFrom, uniqueIp } from '../accounts/support.ts'

let t: TestApp
let port: number
let ada: TestUser
let bob: TestUser

beforeAll(async () => {
  // Timeouts of 1 and 2 s instead of 10 and 60; bcrypt at cost 10 so that hashes overlap.
  t = await testApp({ requestHeadersTimeoutSeconds: 1, requestBodyTimeoutSeconds: 2, passwordCost: 10 })
  await t.app.listen({ host: '127.0.0.1', port: 0 })
  port = (t.app.server.address() as AddressInfo).port
  ada = await createUser(t.ctx, 'Ada')
  bob = await createUser(t.ctx, 'Bob')
})
afterAll(async () => t?.close())

/** Opens a socket, writes `head` at once, then one byte of `rest` a second; resolves how it ended and after how long. */
function trickle(head: string, rest: string): Promise<{ ms: number; answer: string }> {
  return new Promise((resolve) => {
    const started = Date.now()
    const socket = net.connect(port, '127.0.0.1', () => socket.write(head))
    let answer = ''
    let i = 0
    const drip = setInterval(() => {
      if (i < rest.length && !socket.destroyed) socket.write(rest[i++])
    }, 1000)
    socket.on('data', (d) => (answer += d))
    socket.on('error', () => {})
    socket.on('close', () => {
      clearInterval(drip)
      resolve({ ms: Date.now() - started, answer })
    })
  })
}

const importBody = (name: string) => JSON.stringify({ format: 'shopfloor.company', version: 1, company: { name }, agents: [], tasks: [] })

describe('slow requests', () => {
  it('headers that trickle in are cut after the headers timeout', async () => {
    const { ms } = await trickle('GET /health HTTP/1.1\r\nHost: x\r\n', 'X-Slow: ' + 'a'.repeat(60))
    expect(ms).toBeLessThan(4000)
  })

  it('a body at a byte a second is cut after the body timeout, and another person imports meanwhile', async () => {
    const body = importBody('Trickled')
    const head = `POST /api/companies/import HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${ada.token}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`
    const slow = trickle(head + body.slice(0, 10), body.slice(10))
    await new Promise((r) => setTimeout(r, 300))
    // Ada's turn is taken by her own slow body; Bob's import goes ahead.
    const other = await call(t.app, 'POST', '/api/companies/import', { token: bob.token, body: JSON.parse(importBody('Bob imports')) })
    expect(other.status).toBe(201)
    const mine = await call(t.app, 'POST', '/api/companies/import', { token: ada.token, body: JSON.parse(importBody('Ada again')) })
    expect(mine.status).toBe(429)
    expect(mine.body.error.message).toContain('Another company import of yours is under way')
    const { ms, answer } = await slow
    expect(ms).toBeLessThan(5000)
    expect(answer).not.toContain('201')
    expect((await t.ctx.db.one<{ n: number }>("SELECT count(*)::int AS n FROM companies WHERE name = 'Trickled'"))!.n).toBe(0)
    // Her turn comes back with the cut.
    const after = await waitFor(async () => {
      const r = await call(t.app, 'POST', '/api/companies/import', { token: ada.token, body: JSON.parse(importBody('Ada after')) })
      return r.status === 429 ? null : r
    }, 3000)
    expect(after.status).toBe(201)
  })
})

describe('password hashing per client address', () => {
  it('one address gets 2 hashes at once and 20 waiting, beyond that 429; another address is served meanwhile', async () => {
    const crowd = uniqueIp()
    const signIns = Array.from({ length: 26 }, (_, i) =>
      callFrom(t.app, crowd, 'POST', '/api/login', { body: { email: `nobody-${i}@example.test`, password: 'wrong password' } }))
    const elsewhere = callFrom(t.app, uniqueIp(), 'POST', '/api/register', { body: { email: `other-${Date.now()}@example.test`, password: 'a good password', name: 'Other' } })
    const answers = await Promise.all(signIns)
    const statuses = answers.map((a) => a.status)
    expect(statuses.filter((s) => s === 429)).toHaveLength(4)
    expect(statuses.filter((s) => s === 401)).toHaveLength(22)
    expect(answers.find((a) => a.status === 429)!.body.error.code).toBe('RATE_LIMITED')
    expect((await elsewhere).status).toBe(201)
    // The crowd gone, the address is served again.
    expect((await callFrom(t.app, crowd, 'POST', '/api/login', { body: { email: 'nobody@example.test', password: 'wrong password' } })).status).toBe(401)
  })
})

describe('the client address behind a proxy', () => {
  it('comes from X-Forwarded-For only when TRUST_PROXY names the proxy', async () => {
    const login = (app: TestApp['app'], forwardedFor: string) => app.inject({
      method: 'POST', url: '/api/login', remoteAddress: '10.9.9.9', headers: { 'x-forwarded-for': forwardedFor },
      payload: { email: 'nobody@example.test', password: 'wrong password' },
    })
    const proxied = await testApp({ trustProxy: ['10.9.9.9'], passwordCost: 10 })
    try {
      // Behind the named proxy, 26 sign-ins from 26 clients are 26 addresses: none is turned away.
      const spread = await Promise.all(Array.from({ length: 26 }, (_, i) => login(proxied.app, `203.0.113.${i}`)))
      expect(spread.map((r) => r.statusCode).filter((s) => s === 429)).toHaveLength(0)
      // Unnamed, the header is ignored: they are all the proxy's address.
      const ignored = await Promise.all(Array.from({ length: 26 }, (_, i) => login(t.app, `203.0.113.${i}`)))
      expect(ignored.map((r) => r.statusCode).filter((s) => s === 429)).toHaveLength(4)
    } finally {
      await proxied.close()
    }
  })
})

describe('text and body sizes', () => {
  it('a text field over 1 MiB is 413 PAYLOAD_TOO_LARGE naming it; a body over 8 MiB is 413 too', async () => {
    const company = await call(t.app, 'POST', '/api/companies', { token: ada.token, body: { name: 'Sizes' } })
    const base = `/api/companies/${company.body.id}`
    const task = await call(t.app, 'POST', `${base}/tasks`, { token: ada.token, body: { title: 'Sized' } })
    const big = 'é'.repeat(600_000) // 1.2 MB of UTF-8 in 600,000 characters
    for (const [method, url, body, field] of [
      ['POST', `${base}/tasks/${task.body.id}/comments`, { body: big }, 'body'],
      ['PATCH', `${base}/tasks/${task.body.id}`, { description: big }, 'description'],
      ['POST', `${base}/goals`, { title: 'G', description: big }, 'description'],
      ['PATCH', base, { mission: big }, 'mission'],
      ['POST', `${base}/agents`, { name: 'Big', instructions: big }, 'instructions'],
    ] as const) {
      const r = await call(t.app, method, url, { token: ada.token, body })
      expect(r.status, url).toBe(413)
      expect(r.body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { field } })
      expect(r.body.error.message).toContain(field)
    }
    const comments = await call(t.app, 'GET', `${base}/tasks/${task.body.id}/comments`, { token: ada.token })
    expect(comments.body).toEqual([])
    // Just under the limit is taken.
    expect((await call(t.app, 'POST', `${base}/tasks/${task.body.id}/comments`, { token: ada.token, body: { body: 'x'.repeat(1024 * 1024) } })).status).toBe(201)
    const huge = await call(t.app, 'POST', `${base}/tasks`, { token: ada.token, body: { title: 'Huge', labels: 'x'.repeat(9 * 1024 * 1024) } })
    expect(huge.status).toBe(413)
    expect(huge.body.error.code).toBe('PAYLOAD_TOO_LARGE')
  })
})
