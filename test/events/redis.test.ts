// EVENTS_BACKEND=redis against a real Redis: two API instances on one database deliver each
// other's events, one subscriber connection per process, and a Redis restart mid-test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '../../src/server/db/db.ts'
import { channelOf } from '../../src/server/events/redis-bus.ts'
import { call, createUser, type TestApp, testApp, testDb, type TestUser } from '../helpers.ts'
import { hasRedisServer, type OwnRedis, ownRedis, subscriberCount, testRedis } from './redis-server.ts'
import { listen, openLiveStream, openStream, ownedCompany, waitUntil } from './support.ts'

interface Pair {
  a: TestApp
  b: TestApp
  baseA: string
  baseB: string
  close(): Promise<void>
}

/** Two API instances on one database and one Redis, both listening. */
async function twoInstances(redisUrl: string): Promise<Pair> {
  const db: Db = await testDb()
  const a = await testApp({ eventsBackend: 'redis', redisUrl }, { db })
  const b = await testApp({ eventsBackend: 'redis', redisUrl }, { db })
  const [baseA, baseB] = [await listen(a.app), await listen(b.app)]
  await waitUntil(() => a.ctx.bus.stats().connected && b.ctx.bus.stats().connected, 'both buses to connect')
  return {
    a,
    b,
    baseA,
    baseB,
    async close() {
      await a.close()
      await b.close()
      await db.close()
    },
  }
}

const rename = (t: TestApp, companyId: string, user: TestUser, name: string) =>
  call(t.app, 'PATCH', `/api/companies/${companyId}`, { token: user.token, body: { name } })

describe('shared Redis', () => {
  let redis: { url: string; stop(): Promise<void> }
  let pair: Pair
  let user: TestUser
  beforeAll(async () => {
    redis = await testRedis()
    pair = await twoInstances(redis.url)
    user = await createUser(pair.a.ctx, 'Redis Owner')
  })
  afterAll(async () => {
    await pair?.close()
    await redis?.stop()
  })

  it('delivers a write through one instance to streams on both, exactly once', async () => {
    const companyId = await ownedCompany(pair.a.ctx, user)
    const onB = await openLiveStream(pair.baseB, companyId, user.token)
    const onA = await openLiveStream(pair.baseA, companyId, user.token)
    expect((await rename(pair.a, companyId, user, 'Renamed through A')).status).toBe(200)
    expect((await rename(pair.b, companyId, user, 'Renamed through B')).status).toBe(200)
    const expected = [
      { type: 'company.updated', id: companyId },
      { type: 'company.updated', id: companyId },
    ]
    await waitUntil(() => onA.events().length >= 2 && onB.events().length >= 2, 'both events on both instances')
    // A marker published last: anything duplicated would have arrived before it.
    pair.a.ctx.bus.publish(companyId, { type: 'goal.created', id: 'marker' })
    await waitUntil(() => onA.events().at(-1)?.id === 'marker' && onB.events().at(-1)?.id === 'marker', 'the marker')
    expect(onA.events().slice(0, -1)).toEqual(expected)
    expect(onB.events().slice(0, -1)).toEqual(expected)
    onA.close()
    onB.close()
  })

  it('uses one subscriber connection per process and leaves a channel with its last stream', async () => {
    const companyId = await ownedCompany(pair.a.ctx, user)
    const channel = channelOf(companyId)
    const onB = await Promise.all([1, 2, 3].map(() => openLiveStream(pair.baseB, companyId, user.token)))
    expect(await subscriberCount(redis.url, channel)).toBe(1)
    const onA = await openLiveStream(pair.baseA, companyId, user.token)
    expect(await subscriberCount(redis.url, channel)).toBe(2)
    expect(pair.b.ctx.bus.stats()).toMatchObject({ backend: 'redis', connected: true, listeners: 3, companies: 1 })

    for (const s of onB.slice(0, 2)) s.close()
    await waitUntil(() => pair.b.ctx.bus.stats().listeners === 1, 'two streams to close')
    expect(await subscriberCount(redis.url, channel)).toBe(2)
    onB[2].close()
    onA.close()
    await waitUntil(async () => (await subscriberCount(redis.url, channel)) === 0, 'the channel to be unsubscribed')
  })
})

describe('Redis restarted mid-test', () => {
  let redis: OwnRedis
  let pair: Pair
  beforeAll(async () => {
    // This test stops and starts Redis, so it needs a server of its own.
    if (!hasRedisServer()) throw new Error('redis-server is needed on PATH for the restart test')
    redis = await ownRedis()
    pair = await twoInstances(redis.url)
  })
  afterAll(async () => {
    await pair?.close()
    await redis?.stop()
  })

  it('writes still succeed while Redis is down, and streams resume once it is back', async () => {
    const user = await createUser(pair.a.ctx, 'Outage Owner')
    const companyId = await ownedCompany(pair.a.ctx, user, 'Before Outage')
    const later = await ownedCompany(pair.a.ctx, user, 'Opened During Outage')
    const stream = await openLiveStream(pair.baseB, companyId, user.token)

    await redis.stop()
    await waitUntil(() => !pair.a.ctx.bus.stats().connected && !pair.b.ctx.bus.stats().connected, 'both buses to notice')

    // The write commits and answers success; the lost publish is counted.
    const failuresBefore = pair.a.ctx.bus.stats().publishFailures
    const during = await rename(pair.a, companyId, user, 'During Outage')
    expect(during.status).toBe(200)
    expect(during.body.name).toBe('During Outage')
    await waitUntil(() => pair.a.ctx.bus.stats().publishFailures === failuresBefore + 1, 'the failed publish to be counted')
    const row = await pair.a.ctx.db.one<{ name: string }>('SELECT name FROM companies WHERE id = $1', [companyId])
    expect(row!.name).toBe('During Outage')

    // A stream opened while Redis is down still opens (after a bounded wait) and goes live later.
    const opened = await openStream(pair.baseB, later, { token: user.token })
    expect(opened.status).toBe(200)

    await redis.start()
    await waitUntil(() => pair.a.ctx.bus.stats().connected && pair.b.ctx.bus.stats().connected, 'both buses to reconnect', 15_000)
    await waitUntil(
      async () => (await subscriberCount(redis.url, channelOf(companyId))) === 1 && (await subscriberCount(redis.url, channelOf(later))) === 1,
      'the subscriber to subscribe again',
    )

    expect((await rename(pair.a, companyId, user, 'After Outage')).status).toBe(200)
    expect((await rename(pair.a, later, user, 'Later After Outage')).status).toBe(200)
    await waitUntil(() => stream.events().length && opened.events().length, 'events after the restart')
    expect(stream.events()).toEqual([{ type: 'company.updated', id: companyId }])
    expect(opened.events()).toEqual([{ type: 'company.updated', id: later }])
    expect(stream.frames[0]).toEqual(['retry: 3000'])
    stream.close()
    opened.close()
  })
})
