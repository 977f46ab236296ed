// One subscription to every company's events (the scheduler's), on both event backends: it hears
// companies that did not exist when it subscribed, from any process, and again after Redis restarts.
import crypto from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CompanyEvent, memoryBus } from '../../src/server/events/bus.ts'
import { redisBus } from '../../src/server/events/redis-bus.ts'
import { createLogger } from '../../src/server/logger.ts'
import { hasRedisServer, type OwnRedis, ownRedis } from '../events/redis-server.ts'
import { waitUntil } from '../events/support.ts'
import { testConfig } from '../helpers.ts'

const log = createLogger(testConfig())

describe('memory bus', () => {
  it('subscribeAll hears every company, one made after it subscribed included, until unsubscribed', async () => {
    const bus = memoryBus()
    const heard: [string, CompanyEvent][] = []
    const unsubscribe = bus.subscribeAll((companyId, event) => heard.push([companyId, event]))
    await unsubscribe.ready
    const [a, b] = [crypto.randomUUID(), crypto.randomUUID()]
    bus.publish(a, { type: 'routine.created', id: '1' })
    bus.publish(b, { type: 'agent.updated', id: '2' })
    unsubscribe()
    bus.publish(a, { type: 'routine.updated', id: '3' })
    expect(heard).toEqual([
      [a, { type: 'routine.created', id: '1' }],
      [b, { type: 'agent.updated', id: '2' }],
    ])
    await bus.close()
  })
})

describe.runIf(hasRedisServer())('Redis bus', () => {
  let redis: OwnRedis
  beforeAll(async () => {
    redis = await ownRedis()
  })
  afterAll(async () => redis?.stop())

  it('subscribeAll hears companies published from another process, and again after Redis restarts', async () => {
    const listening = redisBus(redis.url, log)
    const publishing = redisBus(redis.url, log)
    const heard: [string, string][] = []
    const unsubscribe = listening.subscribeAll((companyId, event) => heard.push([companyId, event.type]))
    try {
      await unsubscribe.ready
      await waitUntil(() => publishing.stats().connected, 'the publisher to connect')
      const fresh = crypto.randomUUID()
      publishing.publish(fresh, { type: 'routine.created', id: null })
      await waitUntil(() => heard.length === 1, 'the first event')
      expect(heard).toEqual([[fresh, 'routine.created']])

      await redis.stop()
      await redis.start()
      await waitUntil(() => listening.stats().connected && publishing.stats().connected, 'both to reconnect')
      const later = crypto.randomUUID()
      // The pattern is subscribed again on the new connection: keep publishing until heard.
      await waitUntil(() => {
        publishing.publish(later, { type: 'agent.created', id: null })
        return heard.some(([company]) => company === later)
      }, 'an event after the restart')
      // A company-scoped subscriber of the same bus is not fed by the pattern (each event once).
      const scoped: string[] = []
      const off = listening.subscribe(later, (event) => scoped.push(event.type))
      await off.ready
      const before = heard.length
      publishing.publish(later, { type: 'agent.updated', id: null })
      await waitUntil(() => scoped.length === 1 && heard.length === before + 1, 'one delivery to each')
      off()
    } finally {
      unsubscribe()
      await listening.close()
      await publishing.close()
    }
  })
})
