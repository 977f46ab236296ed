import pg from 'pg'
import { cpuSeconds } from './processes.ts'

/** The benchmarks only ever talk to a PostgreSQL server on this machine. */
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/

export function checkLocal(url: string): URL {
  const parsed = new URL(url)
  if (!/^postgres(ql)?:$/.test(parsed.protocol)) throw new Error(`not a postgres:// URL: ${url}`)
  if (!LOOPBACK.test(parsed.hostname)) throw new Error(`benchmarks run against a local PostgreSQL only, not ${parsed.hostname}`)
  return parsed
}

/** The URL of database `name` on the same server as `serverUrl`. */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = checkLocal(serverUrl)
  url.pathname = `/${name}`
  return url.toString()
}

/** Runs fn with one connection to `url`, closed afterwards. */
export async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: checkLocal(url).toString(), options: '-c TimeZone=UTC' })
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end()
  }
}

const IDENT = /^[a-z_][a-z0-9_]*$/

/** Drops database `name` if present and creates it empty; answers its URL. */
export async function recreateDatabase(serverUrl: string, name: string): Promise<string> {
  if (!IDENT.test(name)) throw new Error(`bad database name ${name}`)
  await withClient(databaseUrl(serverUrl, 'postgres'), async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await c.query(`CREATE DATABASE ${name}`)
  })
  return databaseUrl(serverUrl, name)
}

export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  if (!IDENT.test(name)) throw new Error(`bad database name ${name}`)
  await withClient(databaseUrl(serverUrl, 'postgres'), (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
}

/** The server's version and the settings that move write-heavy figures most. */
export async function serverDescription(serverUrl: string): Promise<string> {
  const names = ['autovacuum', 'synchronous_commit', 'fsync', 'shared_buffers', 'max_wal_size']
  return withClient(databaseUrl(serverUrl, 'postgres'), async (c) => {
    const { rows } = await c.query(`SELECT name, current_setting(name) AS value FROM pg_settings WHERE name = ANY($1) ORDER BY array_position($1, name)`, [names])
    const version = (await c.query('SHOW server_version')).rows[0].server_version
    return `${version}; ${rows.map((r) => `${r.name} ${r.value}`).join(', ')}`
  })
}

/**
 * CPU-seconds (user + system, /proc) used so far by the backends of database `url` that are
 * connected now: the work one server's pool asks of PostgreSQL, apart from anyone else's on a
 * shared machine. Read it before and after a load run: a backend that closed in between is
 * lost, so the pools of the benchmarks keep theirs (idle connections live a minute).
 */
export async function databaseCpu(url: string): Promise<() => Promise<number>> {
  const name = new URL(url).pathname.slice(1)
  const pids = () => withClient(databaseUrl(url, 'postgres'), async (c) =>
    (await c.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [name])).rows.map((r) => r.pid))
  const before = new Map<number, number>()
  for (const pid of await pids()) before.set(pid, cpuSeconds(pid) ?? 0)
  // Backends that appear during the run count from 0 (their start is theirs too).
  return async () => {
    let used = 0
    for (const pid of new Set([...before.keys(), ...(await pids())])) used += (cpuSeconds(pid) ?? before.get(pid) ?? 0) - (before.get(pid) ?? 0)
    return used
  }
}

/**
 * Samples what the backends of database `url` are doing every few milliseconds while `work`
 * runs (pg_stat_activity's wait event, or running on a CPU), and answers the share of samples
 * of each kind among busy backends.
 */
export async function waitsDuring<T>(url: string, work: () => Promise<T>): Promise<{ result: T; shares: Record<string, number> }> {
  const name = new URL(url).pathname.slice(1)
  const counts: Record<string, number> = {}
  let sampling = true
  const sampler = withClient(databaseUrl(url, 'postgres'), async (c) => {
    while (sampling) {
      const { rows } = await c.query<{ kind: string }>(
        `SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') AS kind FROM pg_stat_activity
          WHERE datname = $1 AND state = 'active' AND pid <> pg_backend_pid()`,
        [name],
      )
      for (const { kind } of rows) counts[kind] = (counts[kind] ?? 0) + 1
      await new Promise((r) => setTimeout(r, 5))
    }
  })
  try {
    const result = await work()
    return { result, shares: shares(counts) }
  } finally {
    sampling = false
    await sampler
  }
}

function shares(counts: Record<string, number>): Record<string, number> {
  const total = Object.values(counts).reduce((a, b) => a + b, 0) || 1
  return Object.fromEntries(Object.entries(counts).map(([k, v]): [string, number] => [k, v / total]).sort((a, b) => b[1] - a[1]))
}
