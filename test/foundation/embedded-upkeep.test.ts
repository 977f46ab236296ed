// The embedded database has no autovacuum: the server analyses and vacuums its tables by
// autovacuum's thresholds (server/db/upkeep.ts). Without statistics, PostgreSQL guessed a
// company at 0.5% of each table and sorted its whole part of it for a page: the runs page read
// every run of the company, the activity page every audit event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '../../src/server/db/db.ts'
import { startUpkeep, upkeepOnce } from '../../src/server/db/upkeep.ts'
import { embeddedUpkeep } from '../../src/server/metrics.ts'
import { embeddedDb } from '../databases.ts'
import { call, rowsRead, type TestApp, testApp } from '../helpers.ts'
import { seedAgent, seedCompany } from '../runs/seed.ts'

let db: Db
let t: TestApp
beforeAll(async () => {
  db = await embeddedDb()
  t = await testApp({}, { db })
})
afterAll(async () => {
  await t?.close()
  await db?.close()
})

describe('upkeep of the embedded database', () => {
  it('analyses the tables that changed, after which a page reads that page', async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s)
    await db.query(
      `INSERT INTO runs (company_id, agent_id, status, trigger, created_at, started_at, ended_at)
       SELECT $1, $2, 'succeeded', 'manual', c, c, c FROM generate_series(1, 5000) n,
              LATERAL (SELECT now() - make_interval(days => n % 300, secs => n) AS c) at`,
      [s.companyId, agent],
    )
    const page = async () => {
      const before = await rowsRead(db, 'runs')
      const answer = await call(t.app, 'GET', `${s.base}/runs`, { token: s.user.token })
      expect(answer.body).toHaveLength(100)
      return (await rowsRead(db, 'runs')) - before
    }
    // Never analysed: the company's 5,000 runs read and sorted for a page of 100.
    expect(await page()).toBeGreaterThan(1000)
    const counted = async () => (await embeddedUpkeep.get()).values.reduce((sum, v) => sum + v.value, 0)
    const countedBefore = await counted()
    const done = await upkeepOnce(db)
    expect([...done.analysed, ...done.vacuumed]).toContain('runs')
    // Each table done is counted for /metrics.
    expect((await counted()) - countedBefore).toBe(done.analysed.length + done.vacuumed.length)
    expect(await page()).toBeLessThan(200)
    // Nothing changed since: nothing is due.
    expect(await upkeepOnce(db)).toEqual({ vacuumed: [], analysed: [] })
  })

  it('vacuums a table with many dead row versions', async () => {
    const s = await seedCompany(t)
    await db.query(
      `INSERT INTO tasks (company_id, number, title, status) SELECT $1, n, 'Task ' || n, 'todo' FROM generate_series(1, 2000) n`,
      [s.companyId],
    )
    await upkeepOnce(db)
    await db.query(`UPDATE tasks SET status = 'in_progress' WHERE company_id = $1`, [s.companyId])
    await db.query('SELECT pg_stat_force_next_flush()')
    const dead = async () => (await db.one<{ n: number }>(`SELECT n_dead_tup::int AS n FROM pg_stat_user_tables WHERE relname = 'tasks'`))!.n
    expect(await dead()).toBeGreaterThanOrEqual(2000)
    expect((await upkeepOnce(db)).vacuumed).toContain('tasks')
    await db.query('SELECT pg_stat_force_next_flush()')
    expect(await dead()).toBe(0)
  })

  it('runs a pass as the server starts, then every interval, on the embedded database only', async () => {
    const s = await seedCompany(t)
    await db.query(
      `INSERT INTO tasks (company_id, number, title, status) SELECT $1, n, 'Task ' || n, 'todo' FROM generate_series(1, 500) n`,
      [s.companyId],
    )
    const pending = async () => {
      await db.query('SELECT pg_stat_force_next_flush()')
      return (await db.one<{ n: number }>(`SELECT n_mod_since_analyze::int AS n FROM pg_stat_user_tables WHERE relname = 'tasks'`))!.n
    }
    expect(await pending()).toBeGreaterThanOrEqual(500)
    // On a PostgreSQL server autovacuum does it: nothing is started.
    await startUpkeep({ ...db, kind: 'postgres' }, t.ctx.log).stop()
    expect(await pending()).toBeGreaterThanOrEqual(500)
    const upkeep = startUpkeep(db, t.ctx.log, 60_000)
    await upkeep.stop() // waits for the pass begun at start
    expect(await pending()).toBe(0)
  })
})
