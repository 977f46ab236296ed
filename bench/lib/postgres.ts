import pg from 'pg'

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
