// A day's rows of task_days and run_totals are slotted by connection; past days' slots are
// folded into one row (slot -1) by the scheduler's retention pass. Folding changes no figure the
// dashboard shows, leaves today's rows alone, and never waits on a row a writer holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { foldCounterSlots } from '../../src/domain/insights/fold-slots.ts'
import { createCompany, hireAgent } from '../fixtures.ts'
import { call, createUser, TEST_DATABASE_URL, type TestApp, testApp } from '../helpers.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

/** A company whose task_days and run_totals hold rows in several slots two days ago and today. */
async function slotted() {
  const user = await createUser(t.ctx, 'Folder')
  const company = await createCompany(t.app, user.token)
  const agent = await hireAgent(t.app, user.token, company.id)
  await t.ctx.db.query(
    `INSERT INTO task_days (company_id, day, slot, created, completed)
     VALUES ($1, current_date - 2, 0, 3, 0), ($1, current_date - 2, 4, 2, 1), ($1, current_date - 2, 9, -1, 0),
            ($1, current_date, 0, 1, 0), ($1, current_date, 5, 1, 1)`,
    [company.id],
  )
  await t.ctx.db.query(
    `INSERT INTO run_totals (company_id, day, agent_id, project_id, slot, runs, runs_succeeded, runs_failed, cost_cents, tokens_in, tokens_out)
     VALUES ($1, current_date - 2, $2, NULL, 2, 3, 2, 1, 40, 1000, 100), ($1, current_date - 2, $2, NULL, 6, 1, 1, 0, 5, 10, 1),
            ($1, current_date, $2, NULL, 3, 1, 0, 0, 7, 70, 7)`,
    [company.id, agent.id],
  )
  const dashboard = async () => (await call(t.app, 'GET', `/api/companies/${company.id}/dashboard?days=7`, { token: user.token })).body
  const rows = (table: 'task_days' | 'run_totals', columns: string) =>
    t.ctx.db.many(`SELECT (current_date - day) AS ago, slot, ${columns} FROM ${table} WHERE company_id = $1 ORDER BY 1 DESC, 2`, [company.id])
  return { companyId: company.id as string, dashboard, rows }
}

describe("past days' counter slots", () => {
  it('fold into one row a day and key, today left alone, and the dashboard reads the same', async () => {
    const { dashboard, rows } = await slotted()
    const before = await dashboard()
    expect(before.series.at(-3)).toMatchObject({ tasks_created: 4, tasks_completed: 1, cost_cents: 45, runs_succeeded: 3, runs_failed: 1 })

    expect(await foldCounterSlots(t.ctx.db)).toBeGreaterThanOrEqual(5)
    expect(await rows('task_days', 'created, completed')).toEqual([
      { ago: 2, slot: -1, created: 4, completed: 1 },
      { ago: 0, slot: 0, created: 1, completed: 0 },
      { ago: 0, slot: 5, created: 1, completed: 1 },
    ])
    expect(await rows('run_totals', 'runs, runs_succeeded, runs_failed, cost_cents::int, tokens_in::int, tokens_out::int')).toEqual([
      { ago: 2, slot: -1, runs: 4, runs_succeeded: 3, runs_failed: 1, cost_cents: 45, tokens_in: 1010, tokens_out: 101 },
      { ago: 0, slot: 3, runs: 1, runs_succeeded: 0, runs_failed: 0, cost_cents: 7, tokens_in: 70, tokens_out: 7 },
    ])
    expect((await dashboard()).series).toEqual(before.series)
  })

  it.runIf(TEST_DATABASE_URL)('skips a row a writer holds, without waiting for it, and folds it the next time', async () => {
    const { companyId, rows } = await slotted()
    await foldCounterSlots(t.ctx.db) // other workers' companies, folded before this one's row is held
    await t.ctx.db.query(
      `INSERT INTO task_days (company_id, day, slot, created) VALUES ($1, current_date - 2, 7, 10), ($1, current_date - 2, 8, 20)`,
      [companyId],
    )
    let release!: () => void
    const released = new Promise<void>((r) => (release = r))
    let held!: () => void
    const holding = new Promise<void>((r) => (held = r))
    const writer = t.ctx.db.transaction(async (tx) => {
      await tx.query('UPDATE task_days SET created = created + 1 WHERE company_id = $1 AND day = current_date - 2 AND slot = 7', [companyId])
      held()
      await released
    })
    await holding
    await foldCounterSlots(t.ctx.db) // would wait for ever on the held row without SKIP LOCKED
    expect(await rows('task_days', 'created')).toEqual([
      { ago: 2, slot: -1, created: 24 },
      { ago: 2, slot: 7, created: 10 },
      { ago: 0, slot: 0, created: 1 },
      { ago: 0, slot: 5, created: 1 },
    ])
    release()
    await writer
    await foldCounterSlots(t.ctx.db)
    expect((await rows('task_days', 'created'))[0]).toEqual({ ago: 2, slot: -1, created: 35 })
    expect((await rows('task_days', 'created')).length).toBe(3)
  })
})
