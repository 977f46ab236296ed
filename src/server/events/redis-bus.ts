import { Redis, type RedisOptions } from 'ioredis'
import type { Logger } from 'pino'
import { type AnyCompanyListener, type CompanyEvent, deliverToAll, type EventBus, ListenerRegistry, unsubscriber } from './bus.ts'

/** The channel of a company's events (SPEC.md Events, Backends). */
export function channelOf(companyId: string): string {
  return `sat:company:${companyId}:events`
}

const CHANNEL = /^sat:company:(.+):events$/
/** Every company's channel, for listeners to all companies. */
export const ALL_COMPANIES = 'sat:company:*:events'

/**
 * Shared publish/subscribe on `sat:company:<company_id>:events`, so that several API instances
 * deliver each other's events.
 *
 * Two connections per process: a publisher, and one subscriber shared by every stream of the
 * process. A company's channel is subscribed when its first listener arrives and unsubscribed
 * when its last one leaves. Every process, the publishing one included, delivers only what
 * comes back from Redis, so an event reaches each stream exactly once.
 *
 * Neither connection queues commands while Redis is away: a publish then fails at once and is
 * logged and counted (the write it belongs to has committed and still answers success; clients
 * catch up by refetching), instead of piling up in memory. After a Redis restart ioredis
 * reconnects by itself and the subscriber subscribes again to every channel still wanted.
 */
export function redisBus(url: string, log: Logger): EventBus {
  const registry = new ListenerRegistry()
  /** Channels confirmed subscribed on the subscriber's current connection. */
  const live = new Set<string>()
  /** Listeners waiting for their company's channel to become live. */
  const waiting = new Map<string, (() => void)[]>()
  let publishFailures = 0
  let closed = false
  /** Listeners to every company, fed by one pattern subscription while there are any. */
  const everyCompany = new Set<AnyCompanyListener>()
  /** The pattern is subscribed on the subscriber's current connection. */
  let patternLive = false
  let patternWaiting: (() => void)[] = []

  const options: RedisOptions = { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: false }
  const publisher = watch(new Redis(url, { ...options, connectionName: 'shopfloor-events-publish' }), 'publisher')
  // Resubscribing is done here rather than by ioredis, which only remembers channels whose
  // SUBSCRIBE succeeded; streams opened while Redis was down would otherwise stay deaf.
  const subscriber = watch(
    new Redis(url, { ...options, autoResubscribe: false, connectionName: 'shopfloor-events-subscribe' }),
    'subscriber',
  )

  function watch(connection: Redis, role: string): Redis {
    let up = false
    connection.on('ready', () => {
      up = true
      log.info({ role }, 'event bus connected to Redis')
    })
    connection.on('close', () => {
      if (up && !closed) log.warn({ role }, 'event bus lost its Redis connection; reconnecting')
      up = false
    })
    // Without a listener ioredis reports every failed reconnect attempt on the console.
    connection.on('error', (err) => {
      if (up) log.warn({ role, err: err.message }, 'event bus Redis error')
    })
    return connection
  }

  function release(companyId: string) {
    for (const resolve of waiting.get(companyId) ?? []) resolve()
    waiting.delete(companyId)
  }

  function markLive(companyId: string) {
    live.add(companyId)
    release(companyId)
  }

  function listen(companies: string[]) {
    if (subscriber.status !== 'ready' || companies.length === 0) return // done on the next 'ready'
    subscriber.subscribe(...companies.map(channelOf)).then(
      () => {
        for (const companyId of companies) if (registry.has(companyId)) markLive(companyId)
      },
      (err) => log.warn({ err: err.message, companies: companies.length }, 'event bus could not subscribe; retrying on reconnect'),
    )
  }

  function listenToAll() {
    if (subscriber.status !== 'ready' || everyCompany.size === 0 || patternLive) return // done on the next 'ready'
    subscriber.psubscribe(ALL_COMPANIES).then(
      () => {
        if (everyCompany.size === 0) return
        patternLive = true
        for (const resolve of patternWaiting) resolve()
        patternWaiting = []
      },
      (err) => log.warn({ err: err.message }, 'event bus could not subscribe to every company; retrying on reconnect'),
    )
  }

  subscriber.on('ready', () => {
    listen(registry.companies())
    listenToAll()
  })
  subscriber.on('close', () => {
    live.clear()
    patternLive = false
  })

  /** A message of a company's channel, or null (logged) when it is not one. */
  function parse(channel: string, message: string): [string, CompanyEvent] | null {
    const companyId = CHANNEL.exec(channel)?.[1]
    if (!companyId) return null
    try {
      return [companyId, JSON.parse(message)]
    } catch {
      log.warn({ channel }, 'event bus ignored a message that is not JSON')
      return null
    }
  }
  const onListenerError = (err: unknown) => log.error({ err }, 'event listener failed')
  subscriber.on('message', (channel: string, message: string) => {
    const parsed = parse(channel, message)
    if (parsed) registry.deliver(parsed[0], parsed[1], onListenerError)
  })
  subscriber.on('pmessage', (_pattern: string, channel: string, message: string) => {
    const parsed = parse(channel, message)
    if (parsed) deliverToAll(everyCompany, parsed[0], parsed[1], onListenerError)
  })

  return {
    publish(companyId, event) {
      const fail = (err: unknown) => {
        publishFailures++
        log.error(
          { err: err instanceof Error ? err.message : String(err), companyId, type: event.type, publishFailures },
          'event not published: Redis unavailable (the write itself succeeded)',
        )
      }
      if (closed) return fail(new Error('event bus closed'))
      publisher.publish(channelOf(companyId), JSON.stringify(event)).catch(fail)
    },

    subscribe(companyId, listener) {
      const first = registry.add(companyId, listener)
      const ready = live.has(companyId)
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiting.set(companyId, [...(waiting.get(companyId) ?? []), resolve]))
      if (first) listen([companyId])
      return unsubscriber(() => {
        if (!registry.remove(companyId, listener)) return
        // The company's last listener left: stop receiving its channel.
        release(companyId)
        live.delete(companyId)
        if (subscriber.status === 'ready') {
          subscriber.unsubscribe(channelOf(companyId)).catch((err) => log.warn({ err: err.message }, 'event bus could not unsubscribe'))
        }
      }, ready)
    },

    subscribeAll(listener) {
      everyCompany.add(listener)
      const ready = patternLive ? Promise.resolve() : new Promise<void>((resolve) => patternWaiting.push(resolve))
      listenToAll()
      return unsubscriber(() => {
        if (!everyCompany.delete(listener) || everyCompany.size > 0) return
        patternLive = false
        if (subscriber.status === 'ready') {
          subscriber.punsubscribe(ALL_COMPANIES).catch((err) => log.warn({ err: err.message }, 'event bus could not unsubscribe'))
        }
      }, ready)
    },

    stats() {
      return {
        backend: 'redis',
        connected: publisher.status === 'ready' && subscriber.status === 'ready',
        publishFailures,
        ...registry.sizes(),
      }
    },

    async close() {
      closed = true
      registry.clear()
      everyCompany.clear()
      for (const resolve of patternWaiting) resolve()
      patternWaiting = []
      for (const companyId of [...waiting.keys()]) release(companyId)
      live.clear()
      await Promise.all([publisher, subscriber].map(disconnect))
    },
  }
}

/** A polite QUIT when connected (lets a pending publish finish), else drop the connection. */
async function disconnect(connection: Redis): Promise<void> {
  if (connection.status === 'ready') {
    try {
      await connection.quit()
      return
    } catch {
      // fall through
    }
  }
  connection.disconnect()
}
