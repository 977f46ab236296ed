// The client's live event reader against the real stream: events parsed from `data:` lines,
// heartbeat comments ignored, reconnect backoff and its reset, refresh on 401, stop on 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiError, type LiveEvent, ShopfloorClient } from '../../src/client/index.ts'
import { type TestApp, testApp, uniqueEmail } from '../helpers.ts'
import { freePort } from '../server-process.ts'
import { type Gateway, startGateway } from './gateway.ts'

let api: TestApp
let url: string
let gateway: Gateway
beforeAll(async () => {
  // A one-second heartbeat so that a `: heartbeat` comment arrives during the tests.
  api = await testApp({ sseHeartbeatSeconds: 1 })
  url = await api.app.listen({ host: '127.0.0.1', port: 0 })
  gateway = await startGateway(url)
})
afterAll(async () => {
  await gateway?.close()
  await api?.close()
})

async function owner(baseUrl = url) {
  const client = new ShopfloorClient({ baseUrl, retry: false })
  const session = await client.auth.register({ email: uniqueEmail('events'), password: 'password123', name: 'Streamer' })
  const company = await client.companies.create({ name: 'Streamed' })
  return { client, session, companyId: company.id }
}

function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (check()) return resolve()
      if (Date.now() > deadline) return reject(new Error(`timed out waiting for ${what}`))
      setTimeout(tick, 20)
    }
    tick()
  })
}

describe('followEvents', () => {
  it('delivers each event after connecting and reads on past heartbeat comments', async () => {
    const { client, companyId } = await owner()
    const events: LiveEvent[] = []
    let connected = 0
    const stop = new AbortController()
    const following = client.events(companyId, { signal: stop.signal, onEvent: (e) => events.push(e), onConnected: () => connected++ })
    await until(() => connected === 1, 'the connection')
    const task = await client.tasks.create(companyId, { title: 'First' })
    await until(() => events.length === 1, 'the first event')
    await new Promise((resolve) => setTimeout(resolve, 1500)) // a heartbeat goes by
    await client.tasks.update(companyId, task.id, { status: 'done' })
    await until(() => events.length === 2, 'the second event')
    stop.abort()
    await following
    expect(events).toEqual([
      { type: 'task.created', id: task.id },
      { type: 'task.updated', id: task.id },
    ])
    expect(connected).toBe(1)
  })

  it('refreshes the session when the stream answers 401 at connect', async () => {
    const { session, companyId } = await owner()
    const tokens: unknown[] = []
    const client = new ShopfloorClient({
      baseUrl: url,
      credentials: { accessToken: 'stale', refreshToken: session.refresh_token },
      onTokens: (t) => tokens.push(t),
    })
    const stop = new AbortController()
    let connected = false
    const following = client.events(companyId, { signal: stop.signal, onEvent: () => {}, onConnected: () => (connected = true) })
    await until(() => connected, 'the connection')
    stop.abort()
    await following
    expect(tokens).toEqual([expect.objectContaining({ refreshToken: session.refresh_token })])
  })

  it('stops with NOT_FOUND for a company the caller is not in, without reconnecting', async () => {
    const { client } = await owner()
    const { companyId: foreign } = await owner()
    let disconnects = 0
    const error = await client
      .events(foreign, { onEvent: () => {}, onDisconnected: () => disconnects++, delaysMs: [5] })
      .then(() => null, (e) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({ status: 404, code: 'NOT_FOUND' })
    expect(disconnects).toBe(0)
  })

  it('reconnects with growing delays that repeat the last one, and stops when aborted', async () => {
    const client = new ShopfloorClient({ baseUrl: `http://127.0.0.1:${await freePort()}`, credentials: { apiKey: 'svc_live_x' } })
    const waits: number[] = []
    const stop = new AbortController()
    await client.events('00000000-0000-4000-8000-000000000000', {
      signal: stop.signal,
      onEvent: () => {},
      delaysMs: [10, 20, 40],
      onDisconnected: ({ retryInMs }) => {
        waits.push(retryInMs)
        if (waits.length === 5) stop.abort()
      },
    })
    expect(waits).toEqual([10, 20, 40, 40, 40])
  })

  it('starts the backoff again after a successful connection', async () => {
    const { session, companyId } = await owner()
    const client = new ShopfloorClient({ baseUrl: gateway.url, credentials: { accessToken: session.access_token } })
    gateway.plan({ status: 503 }, { status: 503 }, 'stream-then-close', { status: 503 })
    const waits: number[] = []
    const stop = new AbortController()
    let connected = 0
    const following = client.events(companyId, {
      signal: stop.signal,
      onEvent: () => {},
      onConnected: () => connected++,
      delaysMs: [10, 20, 40],
      onDisconnected: ({ retryInMs }) => waits.push(retryInMs),
    })
    // The fifth attempt is forwarded to the real stream and stays connected.
    await until(() => connected === 2, 'the real connection')
    stop.abort()
    await following
    expect(waits).toEqual([10, 20, 10, 20])
  })
})
