import crypto from 'node:crypto'
import pg from 'pg'
import type { Logger } from 'pino'
import { type Db, type Queryable, queryable } from './db.ts'
import { parsers } from './types.ts'

const typeOverrides = {
  getTypeParser(oid: number, format?: any) {
    return parsers[oid] ?? (pg.types.getTypeParser as any)(oid, format)
  },
}

export function openPostgres(url: string, log?: Logger, max = 10): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    types: typeOverrides,
    // JIT compilation pays off for long analytical queries, not for this service's short ones:
    // it added about a second to dashboard and cost aggregates over a million runs.
    options: '-c TimeZone=UTC -c jit=off',
    connectionTimeoutMillis: 5000,
  })
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

  const exec = (client: pg.Pool | pg.PoolClient) => async (sql: string) => {
    await client.query(sql) // no parameters: the simple protocol accepts several statements
  }

  return {
    kind: 'postgres',
    ...queryable(run(pool), exec(pool)),
    async transaction(fn) {
      const client = await pool.connect()
      try {
        await client.query('BEGIN')
        const result = await fn(queryable(run(client), exec(client)))
        await client.query('COMMIT')
        return result
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {})
        throw err
      } finally {
        client.release()
      }
    },
    async close() {
      await pool.end()
    },
  }
}
