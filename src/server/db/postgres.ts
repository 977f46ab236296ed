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
  const pool = new pg.Pool({ ...settings, max })
  const listeners = new Set<ReturnType<typeof listenOn>>()
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
  const runAlone = retryingConflicts(run(pool))

  const exec = (client: pg.Pool | pg.PoolClient) => async (sql: string) => {
    await client.query(sql) // no parameters: the simple protocol accepts several statements
  }

  return {
    kind: 'postgres',
    ...queryable(runAlone, exec(pool)),
    async transaction(fn) {
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
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    listen(channel, onSignal) {
      const listener = listenOn(() => new pg.Client(settings), channel, onSignal, log)
      listeners.add(listener)
      return listener
    },
    async close() {
      await Promise.all([...listeners].map((l) => l.stop()))
      await pool.end()
    },
  }
}

/**
 * LISTEN on a connection of its own, outside the pool: a pooled connection would be handed to
 * other statements. A lost connection is replaced a second later, for as long as it takes;
 * onSignal runs when it is lost and once it listens again, since anything may have been missed.
 */
function listenOn(newClient: () => pg.Client, channel: string, onSignal: () => void, log?: Logger): Listener & { stop(): Promise<void> } {
  let live = false
  let stopped = false
  let current: pg.Client | null = null
  let retry: NodeJS.Timeout | undefined
  let failing = false

  const lost = (client: pg.Client) => {
    if (current !== client) return // already handled, or stopped
    current = null
    if (live) {
      live = false
      onSignal()
    }
    if (!stopped) retry = setTimeout(connect, 1000)
  }

  const connect = async () => {
    const client = newClient()
    current = client
    client.on('error', (err) => {
      log?.warn({ err: err.message, channel }, 'database listener connection lost')
      lost(client)
      client.end().catch(() => {})
    })
    client.on('end', () => lost(client))
    client.on('notification', (message) => {
      if (message.channel === channel) onSignal()
    })
    try {
      await client.connect()
      await client.query(`LISTEN "${channel}"`)
    } catch (err: any) {
      // Once per outage: the pool reports the outage too, and this retries every second.
      if (!failing) log?.warn({ err: err.message, channel }, 'database listener could not connect; retrying every second')
      failing = true
      lost(client)
      client.end().catch(() => {})
      return
    }
    if (current !== client) return
    live = true
    failing = false
    onSignal()
  }
  void connect()

  return {
    get live() {
      return live
    },
    async stop() {
      stopped = true
      clearTimeout(retry)
      live = false
      const client = current
      current = null
      await client?.end().catch(() => {})
    },
  }
}

/** SQLSTATEs of a statement that lost to a concurrent one and may run again as it is. */
const CONFLICTS = new Set(['40P01', '40001']) // deadlock_detected, serialization_failure
const CONFLICT_ATTEMPTS = 4

/** Runs a single statement again (after a short random pause) when it lost a deadlock or a serialization conflict. */
function retryingConflicts(query: Queryable['query']): Queryable['query'] {
  return async (sql, params) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await query(sql, params)
      } catch (err: any) {
        if (!CONFLICTS.has(err?.code) || attempt >= CONFLICT_ATTEMPTS) throw err
        await new Promise((r) => setTimeout(r, Math.random() * 20 * attempt))
      }
    }
  }
}
