// The event stream over a real socket with the in-process backend: access, headers, framing,
// delivery after commit only, disconnect, shutdown and the heartbeat.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { write } from '../../src/server/db/write.ts'
import { streamsOf } from '../../src/server/events/routes.ts'
import { call, createUser, type TestApp, testApp, type TestUser } from '../helpers.ts'
import { listen, openLiveStream, openStream, ownedCompany, waitUntil } from './support.ts'

let t: TestApp
let base: string
let owner: TestUser
let companyId: string

beforeAll(async () => {
  t = await testApp()
  base = await listen(t.app)
  owner = await createUser(t.ctx, 'Stream Owner')
  companyId = await ownedCompany(t.ctx, owner)
})
afterAll(async () => t?.close())

describe('connecting', () => {
  it('without a credential is 401 AUTH_REQUIRED', async () => {
    const r = await call(t.app, 'GET', `/api/companies/${companyId}/events`)
    expect(r.status).toBe(401)
    expect(r.body.error.code).toBe('AUTH_REQUIRED')
  })

  it('accepts no token in the URL or in cookies', async () => {
    const query = await call(t.app, 'GET', `/api/companies/${companyId}/events?access_token=${owner.token}&token=${owner.token}`)
    expect(query.status).toBe(401)
    const cookie = await call(t.app, 'GET', `/api/companies/${companyId}/events`, {
      headers: { cookie: `access_token=${owner.token}; token=${owner.token}` },
    })
    expect(cookie.status).toBe(401)
  })

  it('a non-member is 404 Company not found, over the socket too', async () => {
    const stranger = await createUser(t.ctx, 'Stranger')
    const stream = await openStream(base, companyId, { token: stranger.token })
    expect(stream.status).toBe(404)
    expect(stream.headers['content-type']).toMatch(/^application\/json/)
    await stream.ended
    expect(JSON.parse(stream.body()).error).toMatchObject({ code: 'NOT_FOUND', message: 'Company not found' })
  })

  it('a company id that is not a UUID is 422', async () => {
    const r = await call(t.app, 'GET', '/api/companies/not-a-uuid/events', { token: owner.token })
    expect(r.status).toBe(422)
    expect(r.body.error.code).toBe('VALIDATION_ERROR')
  })
})

describe('framing', () => {
  it('answers 200 with the stream headers and `retry: 3000` first', async () => {
    const stream = await openLiveStream(base, companyId, owner.token)
    expect(stream.status).toBe(200)
    expect(stream.headers['content-type']).toBe('text/event-stream')
    expect(stream.headers['cache-control']).toBe('no-cache')
    expect(stream.headers['x-accel-buffering']).toBe('no')
    expect(stream.headers['x-process-time']).toMatch(/^\d+\.\d{6}$/)
    expect(stream.frames[0]).toEqual(['retry: 3000'])
    stream.close()
  })

  it('sends each committed event as one `data:` line of JSON and nothing else', async () => {
    const stream = await openLiveStream(base, companyId, owner.token)
    await write(t.ctx, async (tx) => {
      await tx.query('UPDATE companies SET mission = $2 WHERE id = $1', [companyId, 'framing'])
      tx.publish(companyId, { type: 'company.updated', id: companyId })
      tx.publish(companyId, { type: 'run.updated', id: 'r-1', agent_id: 'a-1', status: 'running' })
    })
    await waitUntil(() => stream.frames.length >= 3, 'two events')
    expect(stream.frames).toEqual([
      ['retry: 3000'],
      [`data: ${JSON.stringify({ type: 'company.updated', id: companyId })}`],
      [`data: ${JSON.stringify({ type: 'run.updated', id: 'r-1', agent_id: 'a-1', status: 'running' })}`],
    ])
    expect(stream.frames.flat().some((line) => /^(event|id):/.test(line))).toBe(false)
    stream.close()
  })

  it('keeps the CORS headers of a cross-origin request', async () => {
    const stream = await openStream(base, companyId, { token: owner.token, headers: { origin: 'https://app.example.test' } })
    expect(stream.status).toBe(200)
    expect(stream.headers['access-control-allow-origin']).toBe('https://app.example.test')
    stream.close()
  })
})

describe('delivery', () => {
  it('reaches every stream of the company and no other company', async () => {
    const other = await ownedCompany(t.ctx, owner, 'Other Co')
    const [a, b, elsewhere] = await Promise.all([
      openLiveStream(base, companyId, owner.token),
      openLiveStream(base, companyId, owner.token),
      openLiveStream(base, other, owner.token),
    ])
    await write(t.ctx, async (tx) => tx.publish(companyId, { type: 'goal.created', id: 'g-1' }))
    await write(t.ctx, async (tx) => tx.publish(other, { type: 'goal.created', id: 'g-2' }))
    await waitUntil(() => a.events().length && b.events().length && elsewhere.events().length, 'the events')
    expect(a.events()).toEqual([{ type: 'goal.created', id: 'g-1' }])
    expect(b.events()).toEqual([{ type: 'goal.created', id: 'g-1' }])
    expect(elsewhere.events()).toEqual([{ type: 'goal.created', id: 'g-2' }])
    for (const s of [a, b, elsewhere]) s.close()
  })

  it('publishes nothing for a rolled-back write', async () => {
    const stream = await openLiveStream(base, companyId, owner.token)
    await expect(
      write(t.ctx, async (tx) => {
        await tx.query('UPDATE companies SET mission = $2 WHERE id = $1', [companyId, 'rolled back'])
        tx.publish(companyId, { type: 'company.updated', id: companyId })
        throw new Error('abort the write')
      }),
    ).rejects.toThrow('abort the write')
    await write(t.ctx, async (tx) => tx.publish(companyId, { type: 'goal.updated', id: 'after' }))
    await waitUntil(() => stream.events().length, 'the later event')
    expect(stream.events()).toEqual([{ type: 'goal.updated', id: 'after' }])
    stream.close()
  })

  it('publishes only after COMMIT: a listener refetching sees the change', async () => {
    const seen: (string | null)[] = []
    const unsubscribe = t.ctx.bus.subscribe(companyId, () => {
      // Runs synchronously inside publish; the committed row must already be visible.
      void t.ctx.db.one<{ mission: string }>('SELECT mission FROM companies WHERE id = $1', [companyId]).then((r) => seen.push(r!.mission))
    })
    await write(t.ctx, async (tx) => {
      await tx.query('UPDATE companies SET mission = $2 WHERE id = $1', [companyId, 'committed first'])
      tx.publish(companyId, { type: 'company.updated', id: companyId })
    })
    await waitUntil(() => seen.length, 'the refetch')
    expect(seen).toEqual(['committed first'])
    unsubscribe()
  })

  it('a failing listener neither fails the write nor starves the others', async () => {
    const stream = await openLiveStream(base, companyId, owner.token)
    const unsubscribe = t.ctx.bus.subscribe(companyId, () => {
      throw new Error('listener bug')
    })
    await expect(write(t.ctx, async (tx) => tx.publish(companyId, { type: 'task.deleted', id: 't-1' }))).resolves.toBeUndefined()
    await waitUntil(() => stream.events().length, 'the event')
    expect(stream.events()).toEqual([{ type: 'task.deleted', id: 't-1' }])
    unsubscribe()
    stream.close()
  })
})

describe('closing', () => {
  it('a client disconnect unsubscribes and frees the stream', async () => {
    await waitUntil(() => t.ctx.bus.stats().listeners === 0, 'earlier streams to close')
    const stream = await openLiveStream(base, companyId, owner.token)
    expect(t.ctx.bus.stats()).toMatchObject({ listeners: 1, companies: 1 })
    expect(streamsOf(t.ctx).size).toBe(1)
    stream.close()
    await waitUntil(() => t.ctx.bus.stats().listeners === 0, 'the unsubscribe')
    expect(t.ctx.bus.stats().companies).toBe(0)
    expect(streamsOf(t.ctx).size).toBe(0)
    // Publishing to a company nobody listens to any more is harmless.
    await write(t.ctx, async (tx) => tx.publish(companyId, { type: 'goal.deleted', id: 'x' }))
  })

  it('app.close() ends open streams instead of waiting on them', async () => {
    const own = await testApp()
    const ownBase = await listen(own.app)
    const user = await createUser(own.ctx)
    const company = await ownedCompany(own.ctx, user)
    const streams = await Promise.all([1, 2, 3].map(() => openLiveStream(ownBase, company, user.token)))
    const started = Date.now()
    await own.close()
    expect(Date.now() - started).toBeLessThan(3000)
    await Promise.all(streams.map((s) => s.ended))
    expect(streamsOf(own.ctx).size).toBe(0)
  })
})

describe('heartbeat', () => {
  let h: TestApp
  let hBase: string
  let user: TestUser
  let company: string
  beforeAll(async () => {
    h = await testApp({ sseHeartbeatSeconds: 1 })
    hBase = await listen(h.app)
    user = await createUser(h.ctx)
    company = await ownedCompany(h.ctx, user)
  })
  afterAll(async () => h?.close())

  const heartbeats = (frames: string[][]) => frames.filter((f) => f.length === 1 && f[0] === ': heartbeat').length

  it('sends `: heartbeat` after the configured time without an event, and not while events flow', async () => {
    const stream = await openLiveStream(hBase, company, user.token)
    const opened = Date.now()
    await waitUntil(() => heartbeats(stream.frames) === 1, 'the first heartbeat', 3000)
    expect(Date.now() - opened).toBeGreaterThanOrEqual(900)

    // Events every 200 ms for 2 s: the stream is never idle for 1 s, so no heartbeat.
    for (let i = 0; i < 10; i++) {
      h.ctx.bus.publish(company, { type: 'task.updated', id: `t-${i}` })
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    expect(heartbeats(stream.frames)).toBe(1)
    expect(stream.events()).toHaveLength(10)

    await waitUntil(() => heartbeats(stream.frames) === 2, 'the heartbeat after the events', 3000)
    stream.close()
  })
})
