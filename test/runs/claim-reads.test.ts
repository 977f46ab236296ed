// What a claim reads: its own company's runs only. The check that a candidate's agent has no
// running run read every running run of the installation, once per candidate, whenever the
// statistics had been taken while few runs were running (the plan is made once per connection,
// on whatever statistics there are): a claim then cost more the busier other companies were.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DORMANT_STATUSES } from '../../src/contract/agents.ts'
import { call, type TestApp, testApp } from '../helpers.ts'
import { seedAgent, seedCompany, seedTask } from './seed.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

const BUSY_AGENTS = 300

class Rollback extends Error {
  constructor(readonly result: { claimed: Record<string, any> | null; fetched: number }) {
    super('rolled back on purpose')
  }
}

describe('what a claim reads', () => {
  it('reads none of the running runs of other companies, however many there are', async () => {
    // Statistics taken while nothing of this test runs, as they are after a quiet hour.
    await t.ctx.db.query('ANALYZE runs')
    const busy = await seedCompany(t)
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

    const s = await seedCompany(t)
    const agent = await seedAgent(t, s)
    const task = await seedTask(t, s)
    expect((await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body: { task_id: task } })).status).toBe(201)

    // The claim as the runners' route makes it, in a transaction of its own that is rolled back,
    // counting the heap rows of `runs` it fetched through indexes (this transaction's statistics).
    const fetchedSoFar = `SELECT coalesce(idx_tup_fetch, 0)::int AS n FROM pg_stat_xact_user_tables WHERE relname = 'runs'`
    const { claimed, fetched } = await t.ctx.db
      .transaction(async (tx) => {
        const before = (await tx.one<{ n: number }>(fetchedSoFar))!.n
        const row = await tx.one<{ claimed: Record<string, any> | null }>(
          `SELECT claim_run($1, 'reads-test', $2, NULL, NULL, 300, 'user', 'Tester', NULL, NULL, NULL) AS claimed`,
          [s.companyId, DORMANT_STATUSES],
        )
        const after = (await tx.one<{ n: number }>(fetchedSoFar))!.n
        throw new Rollback({ claimed: row!.claimed, fetched: after - before })
      })
      .catch((err) => {
        if (err instanceof Rollback) return err.result
        throw err
      })

    expect(claimed).toMatchObject({ agent_id: agent, status: 'running' })
    // The run, its agent and task, and a few index probes; not the other company's 300 runs.
    expect(fetched).toBeLessThan(BUSY_AGENTS / 10)
  })
})
