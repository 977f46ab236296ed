// Test set-up shared by every test file: a real app on a real database (test/databases.ts).
//   - TEST_DATABASE_URL set: that PostgreSQL server, in a database of the test worker's own.
//   - otherwise: an in-memory embedded database per app.
// Both are copies of a template migrated once per run (test/global-setup.ts). Each test makes
// its own users and companies, so tests never depend on each other's data.
import type { FastifyInstance, InjectOptions } from 'fastify'
import { buildApp } from '../src/api/app.ts'
import { hashPassword } from '../src/server/auth/passwords.ts'
import { signAccessToken } from '../src/server/auth/tokens.ts'
import { type Config, loadConfig } from '../src/server/config.ts'
import type { AppContext } from '../src/server/context.ts'
import type { Db, Queryable } from '../src/server/db/db.ts'
import { openPostgres } from '../src/server/db/postgres.ts'
import { createLogger } from '../src/server/logger.ts'
import { createContext } from '../src/server/start.ts'
import { scratchPostgres, testDb } from './databases.ts'

export { embeddedDataDir, emptyDb, workerDatabaseUrl, scratchPostgres, TEST_DATABASE_URL, testDb } from './databases.ts'
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || null

/** Polls `check` every 50 ms until it gives something truthy, which it returns; throws after `timeoutMs`. */
export async function waitFor<T>(check: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** A config for tests: environment `test`, quiet logs, overrides applied last. */
export function testConfig(overrides: Partial<Config> = {}, env: Record<string, string> = {}): Config {
  // A secret a test names is the one it wants, not the database's kept key.
  const kept = overrides.jwtSecret === undefined ? {} : { jwtSecretKept: false }
  return { ...loadConfig({ ENVIRONMENT: 'test', LOG_LEVEL: 'silent', SCHEDULER: 'off', ...env }), ...kept, ...overrides }
}

export interface TestApp {
  app: FastifyInstance
  ctx: AppContext
  close(): Promise<void>
}

/** A migrated database and the whole API on it, driven with app.inject (no socket). */
export async function testApp(overrides: Partial<Config> = {}, options: { db?: Db } = {}): Promise<TestApp> {
  const config = testConfig(overrides)
  const log = createLogger(config)
  const db = options.db ?? (await testDb())
  const ctx = await createContext(config, log, { db })
  const app = await buildApp(ctx)
  await app.ready()
  return {
    app,
    ctx,
    async close() {
      await app.close()
      await ctx.bus.close()
      if (!options.db) await db.close()
    },
  }
}

/**
 * The API on a database of its own, for tests that act on every company in it (schedulers,
 * delivery workers) or that read the planner's statistics of exactly the companies they make: a
 * scratch PostgreSQL database beside TEST_DATABASE_URL, or a new in-memory embedded one. With
 * `connections: 1` every statement runs on one connection, whose statistics counters a test can
 * flush and read (rowsRead).
 */
export async function privateApp(overrides: Partial<Config> = {}, options: { connections?: number } = {}): Promise<TestApp & { url: string | null }> {
  const scratch = await scratchPostgres()
  const db = scratch ? openPostgres(scratch.url, undefined, options.connections ?? 10) : undefined
  const app = await testApp(overrides, { db })
  return {
    ...app,
    url: scratch?.url ?? null,
    async close() {
      await app.close()
      await db?.close()
      await scratch?.drop()
    },
  }
}

/**
 * Rows read so far in `table` (every table without one): the index entries its indexes gave
 * and the rows its sequential scans read, after this session's pending counters are flushed.
 */
export async function rowsRead(db: Queryable, table?: string): Promise<number> {
  await db.query('SELECT pg_stat_force_next_flush()')
  const row = await db.one<{ n: number }>(
    `SELECT ((SELECT coalesce(sum(idx_tup_read), 0) FROM pg_stat_user_indexes WHERE $1::text IS NULL OR relname = $1)
             + (SELECT coalesce(sum(seq_tup_read), 0) FROM pg_stat_user_tables WHERE $1::text IS NULL OR relname = $1))::int AS n`,
    [table ?? null],
  )
  return row!.n
}

let counter = 0
/** An address no other test uses. */
export function uniqueEmail(tag = 'user'): string {
  return `${tag}-${Date.now().toString(36)}-${process.pid}-${++counter}@example.test`
}

export interface TestUser {
  id: string
  email: string
  name: string
  password: string
  token: string
}

/**
 * A user written straight to the database (password `password123`) with a signed access token,
 * for tests whose subject is not sign-in itself.
 */
export async function createUser(ctx: AppContext, name = 'Test User'): Promise<TestUser> {
  const email = uniqueEmail()
  const password = 'password123'
  const row = await ctx.db.one<{ id: string }>(
    'INSERT INTO users (email, name, password_hash) VALUES ($1, $2, $3) RETURNING id',
    [email, name, await hashPassword(password, ctx.config.passwordCost)],
  )
  const token = signAccessToken(ctx.config.jwtSecret, row!.id)
  return { id: row!.id, email, name, password, token }
}

/** app.inject with a bearer token and a parsed JSON body. */
export async function call(
  app: FastifyInstance,
  method: InjectOptions['method'],
  url: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const response = await app.inject({
    method,
    url,
    headers: { ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...options.headers },
    ...(options.body !== undefined ? { payload: options.body as any } : {}),
  })
  let body: any = null
  try {
    body = response.body ? JSON.parse(response.body) : null
  } catch {
    body = response.body
  }
  return { status: response.statusCode, body, headers: response.headers }
}
