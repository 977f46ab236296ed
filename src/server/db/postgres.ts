import crypto from 'node:crypto'
import pg from 'pg'
import type { Logger } from 'pino'
import { type Db, type Listener, type Queryable, queryable } from './db.ts'
import { parsers } from './types.ts'

const typeOverrides = {
  getTypeParser(oid: number, format?: any) {
    return parsers[oid] ?? (pg.types.getTypeParser as any)(oid, format)
  },
}

export function openPostgres(url: string, log?: Logger, max = 10): Db {
  const settings = {
    connectionString: url,
    types: typeOverrides,
    // JIT compilation pays off for long analytical queries, not for this service's short ones:
    // it added about a second to dashboard and cost aggregates over a million runs.
    options: '-c TimeZone=UTC -c jit=off',
    connectionTimeoutMillis: 5000,
  }
  // An idle connection is kept a minute (the driver's default: 10 s), longer than the webhook
  // workers' 30-second look, so an idle server does not open and close a connection (a
  // PostgreSQL backend started and stopped) twice a minute.
  const slots = counterSlots()
  const pool = new pg.Pool({ ...settings, max, idleTimeoutMillis: 60_000, onConnect: slots.take })
  pool.on('remove', slots.free)
  const listener = notifications(() => new pg.Client(settings), log)
  // An idle client emits `error` when the server goes away; without a listener the process
  // would crash instead of answering 503 and reconnecting once the server is back.
  pool.on('error', (err) => log?.warn({ err: err.message }, 'database connection lost'))

  // Statements with parameters are prepared once per connection under a name derived from
  // their text: PostgreSQL then skips parsing and, for most, planning on later calls. Planning
  // was most of the database's time for the short statements of a typical request.
  const names = new Map<string, string>()
  const nameOf = (sql: string) => {
    let name = names.get(sql)
    if (!name) names.set(sql, (name = `s${crypto.createHash('sha1').update(sql).digest('hex').slice(0, 16)}`))
    return name
  }
  const run = (client: pg.Pool | pg.PoolClient): Queryable['query'] =>
    async (sql, params) => {
      const result = params?.length
        ? await client.query({ name: nameOf(sql), text: sql, values: params as any[] })
        : await client.query(sql)
      return { rows: result.rows, rowCount: result.rowCount ?? result.rows.length }
    }
  // A statement on its own (outside transaction()) is its own transaction, so one that lost a
  // deadlock or a serialization conflict can simply run again; the caller never sees it.
  const runAlone: Queryable['query'] = (sql, params) => retryingConflicts(() => run(pool)(sql, params))

  const exec = (client: pg.Pool | pg.PoolClient) => async (sql: string) => {
    await client.query(sql) // no parameters: the simple protocol accepts several statements
  }

  return {
    kind: 'postgres',
    ...queryable(runAlone, exec(pool)),
    // A transaction PostgreSQL aborted to break a deadlock or a serialization conflict (for
    // example at COMMIT, where the deferred counter triggers lock their rows) runs again from
    // the start instead of failing: fn must act only through its tx (write() resets its events).
    transaction: (fn) => retryingConflicts(() => transactionOnce(fn)),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    listen: (channel, onSignal) => listener.add(channel, onSignal),
    async close() {
      await listener.stop()
      await pool.end()
    },
  }

  async function transactionOnce<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await pool.connect()
    // The pool listens for errors of idle connections only. A checked-out connection that
    // breaks between two statements (the server restarted) emits `error`, which would crash
    // the process without a listener; the next statement fails instead, and the broken
    // connection is discarded on release rather than handed out again.
    let broken: Error | undefined
    const onError = (err: Error) => {
      broken = err
      log?.warn({ err: err.message }, 'database connection lost during a transaction')
    }
    client.on('error', onError)
    try {
      await client.query('BEGIN')
      const result = await fn(queryable(run(client), exec(client)))
      await client.query('COMMIT')
      return result
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {})
      throw err
    } finally {
      client.off('error', onError)
      client.release(broken)
    }
  }
}

/**
 * Each connection of the pool gets a slot of the counters (shopfloor.slot, read by counter_slot()
 * in the database): the lowest no other open connection of the pool holds, so up to 16
 * connections never add to the same counter row at once and wait on each other's commits.
 * `take` is the pool's onConnect, which the pool awaits before the connection's first statement.
 */
function counterSlots() {
  const slots = new Map<pg.ClientBase, number>()
  const free = (client: pg.ClientBase) => void slots.delete(client)
  return {
    free,
    async take(client: pg.ClientBase): Promise<void> {
      const held = new Set(slots.values())
      let slot = 0
      while (held.has(slot)) slot++
      slots.set(client, slot)
      try {
        await client.query(`SET shopfloor.slot = ${slot % 16}`)
      } catch (err) {
        // The pool closes a connection whose onConnect failed, without a `remove` event.
        free(client)
        throw err
      }
    },
  }
}

/**
 * Every LISTEN of a database handle on one connection of its own, outside the pool (a pooled
 * connection would be handed to other statements): one connection a process, whatever the
 * channels (credentials, webhooks, deliveries). A lost connection is replaced a second later,
 * for as long as it takes. Each subscriber's onSignal runs once its channel is listened to and
 * whenever the connection is lost, since anything may have been missed meanwhile.
 */
function notifications(newClient: () => pg.Client, log?: Logger) {
  interface Subscriber {
    channel: string
    onSignal: () => void
    live: boolean
  }
  const subscribers: Subscriber[] = []
  let current: pg.Client | null = null
  /** The LISTEN of each channel on the current connection, once it is connected. */
  let listening = new Map<string, Promise<unknown>>()
  /** The last LISTEN sent on the current connection: the next waits for it (one statement at a time on a connection). */
  let previous: Promise<unknown> = Promise.resolve()
  let started = false
  let stopped = false
  let retry: NodeJS.Timeout | undefined
  let failing = false

  const lost = (client: pg.Client) => {
    if (current !== client) return // already handled, or stopped
    current = null
    listening = new Map()
    for (const s of subscribers) {
      if (!s.live) continue
      s.live = false
      s.onSignal()
    }
    if (!stopped) retry = setTimeout(connect, 1000)
  }

  const listen = (client: pg.Client, channel: string) => {
    let done = listening.get(channel)
    if (!done) {
      // In turn, not side by side: pg deprecates a query sent while another is under way.
      done = previous.then(() => client.query(`LISTEN "${channel}"`))
      previous = done.catch(() => {})
      listening.set(channel, done)
    }
    done.then(
      () => {
        if (current !== client) return
        for (const s of subscribers) {
          if (s.channel !== channel || s.live) continue
          s.live = true
          s.onSignal()
        }
      },
      () => {}, // the connection failed: its error or end event replaces it
    )
  }

  const connect = async () => {
    const client = newClient()
    current = client
    client.on('error', (err) => {
      log?.warn({ err: err.message }, 'database listener connection lost')
      lost(client)
      client.end().catch(() => {})
    })
    client.on('end', () => lost(client))
    client.on('notification', (message) => {
      for (const s of subscribers) if (s.channel === message.channel) s.onSignal()
    })
    try {
      await client.connect()
    } catch (err: any) {
      // Once per outage: the pool reports the outage too, and this retries every second.
      if (!failing) log?.warn({ err: err.message }, 'database listener could not connect; retrying every second')
      failing = true
      lost(client)
      client.end().catch(() => {})
      return
    }
    if (current !== client) return
    failing = false
    listening = new Map()
    previous = Promise.resolve()
    for (const channel of new Set(subscribers.map((s) => s.channel))) listen(client, channel)
  }

  return {
    add(channel: string, onSignal: () => void): Listener {
      const subscriber: Subscriber = { channel, onSignal, live: false }
      subscribers.push(subscriber)
      if (!started) {
        started = true
        void connect()
      } else if (current && listening.size > 0) {
        // Connected (connect() has listened to every channel then): this one too. While
        // connecting or lost, connect() will take it with the others.
        listen(current, channel)
      }
      return {
        get live() {
          return subscriber.live
        },
      }
    },
    async stop() {
      stopped = true
      clearTimeout(retry)
      for (const s of subscribers) s.live = false
      const client = current
      current = null
      await client?.end().catch(() => {})
    },
  }
}

/** SQLSTATEs of a statement that lost to a concurrent one and may run again as it is. */
const CONFLICTS = new Set(['40P01', '40001']) // deadlock_detected, serialization_failure
const CONFLICT_ATTEMPTS = 4

/** Runs a statement or a transaction again (after a short random pause) when it lost a deadlock or a serialization conflict. */
async function retryingConflicts<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt()
    } catch (err: any) {
      if (!CONFLICTS.has(err?.code) || n >= CONFLICT_ATTEMPTS) throw err
      await new Promise((r) => setTimeout(r, Math.random() * 20 * n))
    }
  }
}
