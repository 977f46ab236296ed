import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../../src/api/app.ts'
import { migrate, readMigrations } from '../../src/server/db/migrate.ts'
import { openPostgres } from '../../src/server/db/postgres.ts'
import { createLogger } from '../../src/server/logger.ts'
import { createContext } from '../../src/server/start.ts'
import { call, emptyDb, workerDatabaseUrl, scratchPostgres, TEST_DATABASE_URL, testConfig, testDb } from '../helpers.ts'
import { pgProxy } from '../pg-proxy.ts'

/** The process's warnings from the file's start: the driver warns once a process of a statement sent beside another. */
const warnings: string[] = []
process.on('warning', (warning) => warnings.push(warning.message))

describe('the Db interface', () => {
  it('runs queries, one/many, and rolls a failed transaction back', async () => {
    const db = await testDb()
    try {
      await db.exec('CREATE TEMP TABLE probe (n integer PRIMARY KEY, at timestamptz DEFAULT now())')
      await db.transaction(async (tx) => {
        await tx.query('INSERT INTO probe (n) VALUES ($1), ($2)', [1, 2])
      })
      await expect(
        db.transaction(async (tx) => {
          await tx.query('INSERT INTO probe (n) VALUES (3)')
          throw new Error('abort')
        }),
      ).rejects.toThrow('abort')
      expect(await db.many('SELECT n FROM probe ORDER BY n')).toEqual([{ n: 1 }, { n: 2 }])
      expect(await db.one('SELECT n FROM probe WHERE n = 99')).toBeNull()
      const row = await db.one<{ c: number; at: string }>('SELECT count(*) AS c, max(at) AS at FROM probe')
      expect(row!.c).toBe(2) // bigint arrives as a number
      expect(row!.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$/) // ISO string in UTC
    } finally {
      await db.close()
    }
  })
})

describe.runIf(TEST_DATABASE_URL)('the PostgreSQL pool', () => {
  it('keeps an idle connection past the webhook workers\' 30-second look, instead of starting a backend each time', async () => {
    const db = openPostgres((await workerDatabaseUrl())!, undefined, 2)
    try {
      const backend = async () => (await db.one<{ pid: number }>('SELECT pg_backend_pid() AS pid'))!.pid
      const first = await backend()
      // Past the driver's default idle timeout (10 s), which closed it.
      await new Promise((r) => setTimeout(r, 11_000))
      expect(await backend()).toBe(first)
    } finally {
      await db.close()
    }
  }, 20_000)

  it('gives each open connection a counter slot of its own, so writers at once add to rows of their own', async () => {
    const url = (await workerDatabaseUrl())!
    const db = openPostgres(url, undefined, 16)
    try {
      // 16 transactions open at once hold 16 connections, opened one after another with another
      // backend started in between: their pids go up by two, so by pid alone (pid % 16) they
      // would share 8 slots.
      let release!: () => void
      const held = new Promise<void>((r) => (release = r))
      const slots: number[] = []
      const all: Promise<void>[] = []
      for (let i = 0; i < 16; i++) {
        let opened!: () => void
        const read = new Promise<void>((r) => (opened = r))
        all.push(db.transaction(async (tx) => {
          slots.push((await tx.one<{ slot: number }>('SELECT counter_slot() AS slot'))!.slot)
          opened()
          await held
        }))
        await read
        const other = new pg.Client({ connectionString: url })
        await other.connect()
        await other.end()
      }
      release()
      await Promise.all(all)
      expect(new Set(slots).size).toBe(16)
      expect(slots.every((s) => s >= 0 && s < 16)).toBe(true)
      // Each slot was set before the connection's first statement, not beside it (pg 9 refuses that).
      expect(warnings.filter((message) => message.includes('already executing a query'))).toEqual([])
    } finally {
      await db.close()
    }
  })
})

describe('migrations', () => {
  it('apply once; a second run applies nothing', async () => {
    const db = await emptyDb()
    try {
      const all = readMigrations().map((m) => m.version)
      expect(await migrate(db)).toEqual(all)
      expect(await migrate(db)).toEqual([])
      expect((await db.many('SELECT version FROM schema_migrations ORDER BY version')).map((r) => r.version)).toEqual(all)
    } finally {
      await db.close()
    }
  })

  it.runIf(TEST_DATABASE_URL)('two instances starting together on one PostgreSQL apply each migration exactly once', async () => {
    const scratch = (await scratchPostgres({ empty: true }))!
    const a = openPostgres(scratch.url)
    const b = openPostgres(scratch.url)
    try {
      const [ra, rb] = await Promise.all([migrate(a), migrate(b)])
      const all = readMigrations().map((m) => m.version)
      expect([...ra, ...rb].sort((x, y) => x - y)).toEqual(all)
      const rows = await a.many('SELECT version FROM schema_migrations')
      expect(rows).toHaveLength(all.length)
    } finally {
      await a.close()
      await b.close()
      await scratch.drop()
    }
  })

  it('a failed migration leaves the process up with /health 503 "initialization failed"', async () => {
    const config = testConfig()
    const db = await testDb() // already migrated: only the broken migration is new
    const ctx = await createContext(config, createLogger(config), {
      db,
      migrations: [...readMigrations(), { version: 99999, name: '99999_broken.sql', sql: 'CREATE TABLE broken (' }],
    })
    const app = await buildApp(ctx)
    try {
      expect(ctx.dbState).toBe('failed')
      const r = await call(app, 'GET', '/health')
      expect(r.status).toBe(503)
      expect(r.body).toMatchObject({ status: 'unhealthy', database: 'initialization failed', service: 'shopfloor', version: '2.1.0' })
      // the broken migration was rolled back, the good ones stayed
      expect(await db.one('SELECT 1 FROM schema_migrations WHERE version = 99999')).toBeNull()
    } finally {
      await app.close()
      await db.close()
    }
  })
})


describe.runIf(TEST_DATABASE_URL)('PostgreSQL outage', () => {
  it('answers 503 "database: unreachable" while the server is gone and recovers without a restart', async () => {
    const target = new URL((await workerDatabaseUrl())!)
    const proxy = pgProxy(target)
    const port = await proxy.start()
    const url = new URL(target)
    url.port = String(port)
    url.hostname = '127.0.0.1'
    const config = testConfig({ databaseUrl: url.toString() })
    const log = createLogger(config)
    const db = openPostgres(url.toString(), log)
    const ctx = await createContext(config, log, { db })
    const app = await buildApp(ctx)
    try {
      expect((await call(app, 'GET', '/health')).status).toBe(200)
      await proxy.stop()
      const down = await call(app, 'GET', '/health')
      expect(down.status).toBe(503)
      expect(down.body).toMatchObject({ status: 'unhealthy', database: 'unreachable' })
      await proxy.start(port)
      let status = 0
      for (let i = 0; i < 20 && status !== 200; i++) {
        status = (await call(app, 'GET', '/health')).status
        if (status !== 200) await new Promise((r) => setTimeout(r, 100))
      }
      expect(status).toBe(200)
    } finally {
      await app.close()
      await db.close()
      await proxy.stop().catch(() => {})
    }
  })
})
