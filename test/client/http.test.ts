// The typed client's transport against the real API on a real socket: error envelopes,
// retries with backoff, one shared token refresh, credentials.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiError, NetworkError, ShopfloorClient, type TokenPair } from '../../src/client/index.ts'
import { createUser, type TestApp, testApp, uniqueEmail } from '../helpers.ts'
import { freePort } from '../server-process.ts'
import { type Gateway, startGateway } from './gateway.ts'

let api: TestApp
let url: string
let gateway: Gateway
beforeAll(async () => {
  api = await testApp()
  url = await api.app.listen({ host: '127.0.0.1', port: 0 })
  gateway = await startGateway(url)
})
afterAll(async () => {
  await gateway?.close()
  await api?.close()
})

/** global fetch that records "METHOD path" of every attempt. */
function countingFetch() {
  const calls: string[] = []
  const fetchImpl: typeof fetch = (input, init) => {
    calls.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`)
    return fetch(input, init)
  }
  return { calls, fetch: fetchImpl }
}

const FAST = { retries: 3, baseDelayMs: 5, maxDelayMs: 20 }

async function session(baseUrl = url) {
  const client = new ShopfloorClient({ baseUrl, retry: false })
  const result = await client.auth.register({ email: uniqueEmail('client'), password: 'password123', name: 'Client User' })
  return { client, result }
}

async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

describe('errors', () => {
  it('turns the error envelope into ApiError {status, code, message, details}', async () => {
    const user = await createUser(api.ctx)
    const client = new ShopfloorClient({ baseUrl: url, credentials: { accessToken: user.token } })
    const missing = await rejection(client.tasks.list('00000000-0000-4000-8000-000000000000'))
    expect(missing).toBeInstanceOf(ApiError)
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND', message: 'Company not found', details: {} })

    const invalid = await rejection(client.companies.create({ name: '' }))
    expect(invalid).toMatchObject({ status: 422, code: 'VALIDATION_ERROR' })
    expect(invalid.details.errors).toEqual(expect.arrayContaining([expect.objectContaining({ loc: ['body', 'name'] })]))
  })

  it('reports a body without the envelope as HTTP_ERROR with the status text, without retrying other statuses', async () => {
    const client = new ShopfloorClient({ baseUrl: gateway.url, retry: FAST })
    const before = gateway.seen.length
    gateway.plan({ status: 502 })
    const error = await rejection(client.service.health())
    expect(error).toMatchObject({ status: 502, code: 'HTTP_ERROR', message: 'Bad Gateway' })
    expect(gateway.seen.length - before).toBe(1)
  })
  it('refuses a successful answer that is not JSON with INVALID_RESPONSE', async () => {
    const client = new ShopfloorClient({ baseUrl: gateway.url, retry: false })
    gateway.plan({ status: 200, body: '<html>a web page</html>' })
    const error = await rejection(client.service.health())
    expect(error).toMatchObject({ status: 200, code: 'INVALID_RESPONSE' })
    expect(error.message).toContain('text/html')
  })
})

describe('retries', () => {
  it('retries 503 and 500 with backoff, then succeeds', async () => {
    const client = new ShopfloorClient({ baseUrl: gateway.url, retry: FAST })
    const before = gateway.seen.length
    gateway.plan({ status: 503 }, { status: 500, body: '{"error":{"code":"INTERNAL_ERROR","message":"boom","details":{}}}' })
    expect(await client.service.health()).toMatchObject({ status: 'healthy' })
    expect(gateway.seen.slice(before)).toEqual(['GET /health', 'GET /health', 'GET /health'])
  })

  it('gives up after the configured retries, and never retries when retrying is off', async () => {
    const before = gateway.seen.length
    gateway.plan({ status: 503 }, { status: 503 }, { status: 503 })
    const limited = new ShopfloorClient({ baseUrl: gateway.url, retry: { ...FAST, retries: 2 } })
    expect(await rejection(limited.service.health())).toMatchObject({ status: 503, code: 'HTTP_ERROR' })
    expect(gateway.seen.length - before).toBe(3)

    gateway.plan({ status: 500 })
    const off = new ShopfloorClient({ baseUrl: gateway.url, retry: false })
    expect(await rejection(off.service.health())).toMatchObject({ status: 500 })
    expect(gateway.seen.length - before).toBe(4)
  })

  it('retries 429 from the real rate limiter', async () => {
    const probe = countingFetch()
    const client = new ShopfloorClient({ baseUrl: url, retry: { ...FAST, retries: 2 }, fetch: probe.fetch })
    // The test route allows 10 a minute per address; use them up, then watch the retries.
    for (let i = 0; i < 10; i++) await fetch(`${url}/api/rate-limit-test`)
    const error = await rejection(client.http.request('GET', '/api/rate-limit-test', { auth: false }))
    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMITED' })
    expect(probe.calls).toEqual(Array(3).fill('GET /api/rate-limit-test'))
  })

  it('retries network errors and then throws NetworkError', async () => {
    const probe = countingFetch()
    const closed = `http://127.0.0.1:${await freePort()}`
    const client = new ShopfloorClient({ baseUrl: closed, retry: FAST, fetch: probe.fetch })
    const error = await rejection(client.service.info())
    expect(error).toBeInstanceOf(NetworkError)
    expect(error.message).toContain(`Cannot reach ${closed}`)
    expect(probe.calls).toHaveLength(4)
  })
})

describe('credentials', () => {
  it('signs in, reports the tokens, and signs out', async () => {
    const reported: (TokenPair | null)[] = []
    const client = new ShopfloorClient({ baseUrl: url, onTokens: (t) => reported.push(t) })
    const email = uniqueEmail('login')
    await new ShopfloorClient({ baseUrl: url }).auth.register({ email, password: 'password123', name: 'Lou' })
    const signedIn = await client.auth.login(email, 'password123')
    expect(reported).toEqual([{ accessToken: signedIn.access_token, refreshToken: signedIn.refresh_token }])
    expect((await client.me.get()).email).toBe(email)
    await client.auth.logout()
    expect(reported.at(-1)).toBeNull()
    expect(client.http.getCredentials()).toBeNull()
  })

  it('will not end every session when asked to end only its own without a refresh token', async () => {
    const { result } = await session()
    const client = new ShopfloorClient({ baseUrl: url, credentials: { accessToken: result.access_token } })
    await expect(client.auth.logout()).rejects.toThrow(/no refresh token/)
    // The session's refresh token still works: nothing was ended.
    const refreshed = await fetch(`${url}/api/refresh`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refresh_token: result.refresh_token }) })
    expect(refreshed.status).toBe(200)
  })

  it('refreshes once for simultaneous 401s, stores the new token and retries each request once', async () => {
    const { result } = await session()
    const probe = countingFetch()
    const reported: (TokenPair | null)[] = []
    const client = new ShopfloorClient({
      baseUrl: url,
      credentials: { accessToken: 'expired-or-garbage', refreshToken: result.refresh_token },
      onTokens: (t) => reported.push(t),
      fetch: probe.fetch,
    })
    const answers = await Promise.all([client.me.get(), client.companies.list(), client.apiKeys.list()])
    expect(answers[0].id).toBe(result.user.id)
    expect(probe.calls.filter((c) => c === 'POST /api/refresh')).toHaveLength(1)
    expect(reported).toHaveLength(1)
    expect(reported[0]).toEqual({ accessToken: expect.any(String), refreshToken: result.refresh_token })
    expect(reported[0]!.accessToken).not.toBe('expired-or-garbage')
    // 3 refused + 1 refresh + 3 retried.
    expect(probe.calls).toHaveLength(7)
    await client.me.get()
    expect(probe.calls).toHaveLength(8)
  })

  it('drops the session when the refresh token is refused, answering the original 401', async () => {
    const reported: (TokenPair | null)[] = []
    const client = new ShopfloorClient({
      baseUrl: url,
      credentials: { accessToken: 'garbage', refreshToken: 'not-a-refresh-token' },
      onTokens: (t) => reported.push(t),
    })
    expect(await rejection(client.me.get())).toMatchObject({ status: 401, code: 'INVALID_TOKEN' })
    expect(reported).toEqual([null])
    expect(client.http.getCredentials()).toBeNull()
  })

  it('sends an API key as the bearer and never tries to refresh it', async () => {
    const { client: owner } = await session()
    const created = await owner.apiKeys.create({ name: 'unattended' })
    const probe = countingFetch()
    const client = new ShopfloorClient({ baseUrl: url, credentials: { apiKey: created.key }, fetch: probe.fetch })
    expect((await client.me.get()).id).toEqual(expect.any(String))
    await owner.apiKeys.revoke(created.id)
    expect(await rejection(client.me.get())).toMatchObject({ status: 401, code: 'INVALID_TOKEN' })
    expect(probe.calls).toEqual(['GET /api/me', 'GET /api/me'])
  })
})

describe('endpoints', () => {
  it('addresses tasks by key, sends repeated filters, and answers null for an empty claim', async () => {
    const { client } = await session()
    const company = await client.companies.create({ name: 'Typed', task_prefix: 'TYP' })
    await client.tasks.create(company.id, { title: 'One', status: 'blocked' })
    await client.tasks.create(company.id, { title: 'Two', status: 'done' })
    await client.tasks.create(company.id, { title: 'Three' })
    expect((await client.tasks.get(company.id, 'typ-2')).title).toBe('Two')
    const filtered = await client.tasks.list(company.id, { status: ['blocked', 'done'] })
    expect(filtered.map((t) => t.key).sort()).toEqual(['TYP-1', 'TYP-2'])
    expect(await client.runs.claim(company.id, { runner_id: 'nobody' })).toBeNull()
    await client.tasks.delete(company.id, 'TYP-3')
    expect(await rejection(client.tasks.get(company.id, 'TYP-3'))).toMatchObject({ status: 404 })
  })
})
