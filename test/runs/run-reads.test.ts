// What a run's cycle reads: its own company's runs only. The checks that an agent (or a task)
// has no other running run read every running run of the installation, once per candidate in
// the claim and once in each finish, whenever the statistics had been taken while few runs were
// running: the plan scanned the `runs_running` index whole instead of the company's part of it,
// so a claim or a finish cost more the busier other companies were.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '../../src/server/db/db.ts'
import { openPostgres } from '../../src/server/db/postgres.ts'
import { call, type TestApp, testApp, workerDatabaseUrl } from '../helpers.ts'
import { type Seeded, seedAgent, seedCompany, seedTask } from './seed.ts'

// The app on one database connection, so that the statistics of its statements are this
// connection's to flush and read (the embedded database has one connection anyway).
let db: Db | null = null
let t: TestApp
beforeAll(async () => {
  const url = workerDatabaseUrl()
  db = url ? openPostgres(await url, undefined, 1) : null
  t = await testApp({}, db ? { db } : {})
})
afterAll(async () => {
  await t?.close()
  await db?.close()
})

const BUSY_AGENTS = 300
/** The company whose 300 agents are at work (each holding a running run). */
let busy: Seeded

/** Scans of runs_one_running_per_agent so far: how "does this agent run anything?" is answered. */
async function busyAgentProbes(): Promise<number> {
  await t.ctx.db.query('SELECT pg_stat_force_next_flush()')
  const row = await t.ctx.db.one<{ n: number }>(`SELECT idx_scan::int AS n FROM pg_stat_user_indexes WHERE indexrelname = 'runs_one_running_per_agent'`)
  return row!.n
}

/** Rows of `table` read so far by this database's sessions: through indexes and by sequential scans. */
async function rowsRead(table: 'runs' | 'tasks'): Promise<number> {
  await t.ctx.db.query('SELECT pg_stat_force_next_flush()')
  const row = await t.ctx.db.one<{ n: number }>(
    `SELECT (coalesce(idx_tup_fetch, 0) + coalesce(seq_tup_read, 0))::int AS n FROM pg_stat_user_tables WHERE relname = $1`,
    [table],
  )
  return row!.n
}
const runsRowsRead = () => rowsRead('runs')

/** How runs were read so far, by sequential scans and by each index: the message of a failed count. */
async function runsReadBy(): Promise<Record<string, number>> {
  await t.ctx.db.query('SELECT pg_stat_force_next_flush()')
  const rows = await t.ctx.db.many<{ by: string; n: number }>(
    `SELECT 'sequential scans' AS by, coalesce(seq_tup_read, 0)::int AS n FROM pg_stat_user_tables WHERE relname = 'runs'
     UNION ALL
     SELECT indexrelname, idx_tup_fetch::int FROM pg_stat_user_indexes WHERE relname = 'runs'`,
  )
  return Object.fromEntries(rows.map((r) => [r.by, r.n]))
}
const grownBy = (before: Record<string, number>, after: Record<string, number>) =>
  JSON.stringify(Object.fromEntries(Object.entries(after).filter(([by, n]) => n !== before[by]).map(([by, n]) => [by, n - (before[by] ?? 0)])))

describe('what a run reads', () => {
  beforeAll(async () => {
    // Statistics taken while nothing of this test runs, as they are after a quiet hour.
    await t.ctx.db.query('ANALYZE runs')
    busy = await seedCompany(t)
    // Another company with 300 agents at work (SQL: no endpoint starts 300 runs at once).
    await t.ctx.db.query(
      `WITH a AS (
         INSERT INTO agents (company_id, name, adapter, status)
         SELECT $1, 'Busy ' || g, 'process', 'running' FROM generate_series(1, $2) g RETURNING id, company_id
       )
       INSERT INTO runs (company_id, agent_id, status, trigger, runner_id, started_at, heartbeat_at)
       SELECT company_id, id, 'running', 'manual', 'elsewhere', now(), now() FROM a`,
      [busy.companyId, BUSY_AGENTS],
    )
  })

  it('is claimed, reported running and finished without reading the running runs of other companies', async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s)
    const task = await seedTask(t, s)
    expect((await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body: { task_id: task } })).status).toBe(201)

    const read: Record<string, number> = {}
    const step = async (name: string, request: () => Promise<{ status: number; body: any }>, status: number) => {
      const before = await runsRowsRead()
      const answer = await request()
      expect(answer.status).toBe(status)
      read[name] = (await runsRowsRead()) - before
      return answer.body
    }
    const claimed = await step('claim', () => call(t.app, 'POST', `${s.base}/runs/claim`, { token: s.user.token, body: { runner_id: 'r1' } }), 200)
    expect(claimed.run).toMatchObject({ agent_id: agent, status: 'running' })
    const run = `${s.base}/runs/${claimed.run.id}`
    await step('running', () => call(t.app, 'PATCH', run, { token: s.user.token, body: { runner_id: 'r1', status: 'running', tokens_in: 10 } }), 200)
    await step('succeeded', () => call(t.app, 'PATCH', run, { token: s.user.token, body: { runner_id: 'r1', status: 'succeeded' } }), 200)
    // A failed run goes through the transaction path (its task goes back to todo).
    expect((await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body: { task_id: task } })).status).toBe(201)
    const again = await step('claim again', () => call(t.app, 'POST', `${s.base}/runs/claim`, { token: s.user.token, body: { runner_id: 'r1' } }), 200)
    await step('failed', () => call(t.app, 'PATCH', `${s.base}/runs/${again.run.id}`, { token: s.user.token, body: { runner_id: 'r1', status: 'failed', error: 'no' } }), 200)
    expect(await t.ctx.db.one(`SELECT status FROM agents WHERE id = $1`, [agent])).toEqual({ status: 'error' })

    // The run, its agent's and task's runs, a few index probes: not the other company's 300 runs.
    expect(Object.entries(read).filter(([, rows]) => rows >= BUSY_AGENTS / 10)).toEqual([])
  })

  it('claims past the queued runs of agents at work with one probe of each agent, whatever the statistics', async () => {
    // Each of the 300 agents at work has a run queued ahead of the one claimable run. Planned
    // on statistics taken while nothing ran, the check that a candidate's agent runs nothing
    // else scanned the company's running runs once per candidate: 300 x 300 rows a claim.
    await t.ctx.db.query(
      `INSERT INTO runs (company_id, agent_id, status, trigger, created_at)
       SELECT company_id, agent_id, 'queued', 'manual', now() - interval '1 hour' FROM runs WHERE company_id = $1 AND status = 'running'`,
      [busy.companyId],
    )
    const agent = await seedAgent(t, busy)
    const task = await seedTask(t, busy)
    expect((await call(t.app, 'POST', `${busy.base}/agents/${agent}/wake`, { token: busy.user.token, body: { task_id: task } })).status).toBe(201)
    const before = await runsRowsRead()
    const claimed = await call(t.app, 'POST', `${busy.base}/runs/claim`, { token: busy.user.token, body: { runner_id: 'r1' } })
    const read = (await runsRowsRead()) - before
    await t.ctx.db.query(`UPDATE runs SET status = 'cancelled', ended_at = now() WHERE company_id = $1 AND status = 'queued'`, [busy.companyId])
    expect(claimed.status).toBe(200)
    expect(claimed.body.run).toMatchObject({ agent_id: agent, status: 'running' })
    // The 300 queued runs walked past, one probe for each one's agent, the lease check: a few
    // rows a candidate, not 300.
    expect(read).toBeLessThan(BUSY_AGENTS * 5)

    // Finishing asks the same question ("does the agent run anything else?") through the same
    // index, on both ways a run ends: the one-statement finish and the transaction that puts a
    // failed run's task back. Neither reads the company's running runs: the failed run's task
    // goes back only if no other run of that task is running, which is asked of the task's runs
    // (planned as above, it read the company's 300 running runs twice).
    const runner = { token: busy.user.token }
    const finish = async (runId: string, body: Record<string, unknown>) => {
      const [probesBefore, readBefore, byBefore] = [await busyAgentProbes(), await runsRowsRead(), await runsReadBy()]
      expect((await call(t.app, 'PATCH', `${busy.base}/runs/${runId}`, { ...runner, body: { runner_id: 'r1', ...body } })).status).toBe(200)
      expect(await busyAgentProbes()).toBeGreaterThan(probesBefore)
      // Should it fail, the message says which index (or a sequential scan) read the rows.
      expect((await runsRowsRead()) - readBefore, grownBy(byBefore, await runsReadBy())).toBeLessThan(BUSY_AGENTS / 10)
    }
    await finish(claimed.body.run.id, { status: 'succeeded' })
    expect(await t.ctx.db.one('SELECT status FROM agents WHERE id = $1', [agent])).toEqual({ status: 'idle' })
    // Back to todo, so that the next claim moves it and its failure goes through the transaction.
    expect((await call(t.app, 'PATCH', `${busy.base}/tasks/${task}`, { ...runner, body: { status: 'todo' } })).status).toBe(200)
    expect((await call(t.app, 'POST', `${busy.base}/agents/${agent}/wake`, { ...runner, body: { task_id: task } })).status).toBe(201)
    const again = await call(t.app, 'POST', `${busy.base}/runs/claim`, { ...runner, body: { runner_id: 'r1' } })
    expect(again.body.run).toMatchObject({ agent_id: agent })
    await finish(again.body.run.id, { status: 'failed', error: 'no' })
    expect(await t.ctx.db.one('SELECT status FROM agents WHERE id = $1', [agent])).toEqual({ status: 'error' })
    expect(await t.ctx.db.one('SELECT status FROM tasks WHERE id = $1', [task])).toEqual({ status: 'todo' })
  })

  it("finds its own run by id among the company's 300 running runs with one probe, whatever the statistics", async () => {
    // Statistics taken while nothing ran call the partial indexes on status = 'running' empty:
    // a statement finding the run by id *and* status = 'running' (a report, a heartbeat, the run
    // credential's check) then read the company's running runs through one of them instead of
    // taking the primary key - one row a request became 300. (A table of many pages, so that
    // no plan reads it whole: 20,000 runs another company finished.)
    const other = await seedCompany(t)
    const otherAgent = await seedAgent(t, other)
    await t.ctx.db.query(
      `INSERT INTO runs (company_id, agent_id, status, trigger, created_at, started_at, ended_at)
       SELECT $1, $2, 'succeeded', 'manual', e, e, e FROM generate_series(1, 20000) g,
              LATERAL (SELECT now() - make_interval(days => g % 300, secs => g) AS e) ended`,
      [other.companyId, otherAgent],
    )
    const agent = await seedAgent(t, busy)
    const task = await seedTask(t, busy)
    expect((await call(t.app, 'POST', `${busy.base}/agents/${agent}/wake`, { token: busy.user.token, body: { task_id: task } })).status).toBe(201)
    const claimed = await call(t.app, 'POST', `${busy.base}/runs/claim`, { token: busy.user.token, body: { runner_id: 'r1' } })
    expect(claimed.body.run).toMatchObject({ agent_id: agent, status: 'running' })
    const run = `${busy.base}/runs/${claimed.body.run.id}`
    const read: Record<string, number> = {}
    const step = async (name: string, request: () => Promise<{ status: number }>) => {
      const before = await runsRowsRead()
      expect((await request()).status).toBe(200)
      read[name] = (await runsRowsRead()) - before
    }
    await step('run credential', () => call(t.app, 'GET', '/api/run', { token: claimed.body.run_token }))
    await step('heartbeat', () => call(t.app, 'POST', `${run}/heartbeat`, { token: busy.user.token, body: { runner_id: 'r1' } }))
    await step('running', () => call(t.app, 'PATCH', run, { token: busy.user.token, body: { runner_id: 'r1', status: 'running', tokens_in: 5 } }))
    await step('task read with the run credential', () => call(t.app, 'GET', `${busy.base}/tasks/${task}`, { token: claimed.body.run_token }))
    await step('succeeded', () => call(t.app, 'PATCH', run, { token: busy.user.token, body: { runner_id: 'r1', status: 'succeeded' } }))
    expect(Object.entries(read).filter(([, rows]) => rows >= BUSY_AGENTS / 10)).toEqual([])
  })

  it("sweeps a company's expired leases without reading other companies' running runs, however often", async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s)
    const task = await seedTask(t, s)
    expect((await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body: { task_id: task } })).status).toBe(201)
    const claimed = await call(t.app, 'POST', `${s.base}/runs/claim`, { token: s.user.token, body: { runner_id: 'r1' } })
    expect(claimed.status).toBe(200)
    // Statements prepared on the embedded database may be planned once for any company after a
    // few uses (a generic plan): the tenth sweep must read what the first did.
    const reads: number[] = []
    for (let i = 0; i < 10; i++) {
      const before = await runsRowsRead()
      const swept = await call(t.app, 'POST', `${s.base}/runs/expire-stale`, { token: s.user.token })
      expect(swept).toMatchObject({ status: 200, body: { expired: [] } })
      reads.push((await runsRowsRead()) - before)
    }
    expect(reads.filter((rows) => rows >= BUSY_AGENTS / 10)).toEqual([])
    // Its lease over, the company's own running run is what a sweep fails.
    await t.ctx.db.query(`UPDATE runs SET heartbeat_at = now() - interval '1 day' WHERE id = $1`, [claimed.body.run.id])
    const swept = await call(t.app, 'POST', `${s.base}/runs/expire-stale`, { token: s.user.token })
    expect(swept.body.expired).toEqual([claimed.body.run.id])
  })

  it("claims the oldest queued run without reading the company's finished runs, whatever the statistics", async () => {
    // Statistics taken while the company's runs were all still queued (a new company, a
    // backlog queued at once) made the claim's plan walk the company's runs in time order from
    // the oldest, finished ones included, and sort each instant's runs by id: a claim read every
    // run the company had finished since.
    const QUEUED = 2000
    const s = await seedCompany(t)
    await t.ctx.db.query(
      `WITH a AS (
         INSERT INTO agents (company_id, name, adapter) SELECT $1, 'Queue ' || g, 'process' FROM generate_series(1, $2) g RETURNING id, company_id, name
       )
       INSERT INTO runs (company_id, agent_id, status, trigger, created_at)
       SELECT company_id, id, 'queued', 'manual', now() - make_interval(secs => $2 - split_part(name, ' ', 2)::int) FROM a`,
      [s.companyId, QUEUED],
    )
    await t.ctx.db.query('ANALYZE runs')
    await t.ctx.db.query(
      `UPDATE runs SET status = 'succeeded', started_at = created_at, heartbeat_at = created_at, ended_at = created_at
        WHERE id IN (SELECT id FROM runs WHERE company_id = $1 ORDER BY created_at, id LIMIT $2)`,
      [s.companyId, QUEUED - 10],
    )
    const reads: number[] = []
    for (let i = 0; i < 6; i++) {
      const before = await runsRowsRead()
      const claimed = await call(t.app, 'POST', `${s.base}/runs/claim`, { token: s.user.token, body: { runner_id: `r${i}` } })
      expect(claimed.status).toBe(200)
      reads.push((await runsRowsRead()) - before)
    }
    expect(reads.filter((rows) => rows >= BUSY_AGENTS / 10)).toEqual([])
  })

  it("lists the week's failed runs in the inbox without reading the runs that succeeded", async () => {
    // The inbox's last 20 failures were found by walking every run the company ended in the
    // last 7 days, newest first: a company whose runs seldom fail read a week of them.
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s)
    await t.ctx.db.query(
      `INSERT INTO runs (company_id, agent_id, status, trigger, created_at, started_at, ended_at, error)
       SELECT $1, $2, CASE WHEN g % 500 = 0 THEN 'failed' ELSE 'succeeded' END, 'manual', e, e, e,
              CASE WHEN g % 500 = 0 THEN 'broke' END
         FROM generate_series(1, 2000) g, LATERAL (SELECT now() - make_interval(secs => g * 60) AS e) ended`,
      [s.companyId, agent],
    )
    const before = await runsRowsRead()
    const inbox = await call(t.app, 'GET', `${s.base}/inbox`, { token: s.user.token })
    expect(inbox.status).toBe(200)
    expect(inbox.body.failed_runs.map((r: any) => r.error)).toEqual(['broke', 'broke', 'broke', 'broke'])
    expect((await runsRowsRead()) - before).toBeLessThan(BUSY_AGENTS / 10)
  })

  it("names a list's tasks with one lookup per run, not a read of the company's tasks, whatever the statistics", async () => {
    // Each run of a list is given its task's key and title. Planned as a join, the lookup could
    // read every task of the company (the generic plan does not know how many runs the list has).
    const TASKS = 3000
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s)
    await t.ctx.db.query(
      `WITH made AS (
         INSERT INTO tasks (company_id, number, title, status)
         SELECT $1, g, 'Task ' || g, 'done' FROM generate_series(1, $2) g RETURNING id, number
       )
       INSERT INTO runs (company_id, agent_id, task_id, status, trigger, created_at)
       SELECT $1, $3, id, 'succeeded', 'assignment', now() - make_interval(secs => number) FROM made`,
      [s.companyId, TASKS, agent],
    )
    await t.ctx.db.query('ANALYZE tasks')
    await t.ctx.db.query('ANALYZE runs')
    const reads: number[] = []
    // Beyond five executions of a statement, PostgreSQL may use its generic plan.
    for (let i = 0; i < 8; i++) {
      const before = await rowsRead('tasks')
      const list = await call(t.app, 'GET', `${s.base}/runs?limit=100${i % 2 ? '&status=succeeded' : ''}`, { token: s.user.token })
      expect(list.status).toBe(200)
      expect(list.body).toHaveLength(100)
      expect(list.body[99].task_key).toMatch(/-\d+$/)
      reads.push((await rowsRead('tasks')) - before)
    }
    expect(reads.filter((rows) => rows > 100)).toEqual([])
  })

  it("rewrites a running run's row in place on each progress report and heartbeat, adding no index entry", async () => {
    // A long run reports every few seconds. Each report changed a column an index of runs holds
    // (its heartbeat, its cost), so each wrote a new entry in every index of the table.
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s)
    const run = (await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body: {} })).body.id as string
    expect((await call(t.app, 'POST', `${s.base}/runs/claim`, { token: s.user.token, body: { runner_id: 'long' } })).body.run.id).toBe(run)
    const updates = async () => {
      await t.ctx.db.query('SELECT pg_stat_force_next_flush()')
      return (await t.ctx.db.one<{ all: number; hot: number }>(
        `SELECT n_tup_upd::int AS all, n_tup_hot_upd::int AS hot FROM pg_stat_user_tables WHERE relname = 'runs'`,
      ))!
    }
    const before = await updates()
    for (let i = 1; i <= 10; i++) {
      const report = await call(t.app, 'PATCH', `${s.base}/runs/${run}`, {
        token: s.user.token,
        body: { runner_id: 'long', status: 'running', tokens_in: 100 * i, tokens_out: 10 * i, cost_cents: i, transcript: [{ role: 'agent', text: `Step ${i}` }] },
      })
      expect(report.status).toBe(200)
      expect((await call(t.app, 'POST', `${s.base}/runs/${run}/heartbeat`, { token: s.user.token, body: { runner_id: 'long' } })).status).toBe(200)
    }
    const after = await updates()
    expect(after.all - before.all).toBe(20)
    // Where the row's page is full, an update moves it to another page, not in place: a few may.
    expect(after.hot - before.hot).toBeGreaterThanOrEqual(15)
  })
})
