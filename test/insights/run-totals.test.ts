// Past days whose runs have all finished are totalled once and read back from run_day_totals;
// today and a past day with a queued or running run are added up live.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCompany, createTask, hireAgent } from '../fixtures.ts'
import { call, createUser, type TestApp, testApp } from '../helpers.ts'
import { finishRun } from '../approvals/flow.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

async function setup() {
  const user = await createUser(t.ctx, 'Counter')
  const company = await createCompany(t.app, user.token)
  const agent = await hireAgent(t.app, user.token, company.id)
  return { user, companyId: company.id as string, base: `/api/companies/${company.id}`, agent }
}

async function backdate(runId: string, days: number) {
  await t.ctx.db.query('UPDATE runs SET created_at = created_at - make_interval(days => $2) WHERE id = $1', [runId, days])
}

async function day(offset: number) {
  return (await t.ctx.db.one<{ d: string }>("SELECT to_char(current_date - $1::int, 'YYYY-MM-DD') AS d", [offset]))!.d
}

describe('run totals', () => {
  it('stores finished past days once and reads them back', async () => {
    const { user, companyId, base, agent } = await setup()
    const run = await finishRun(t.app, user.token, companyId, agent.id, { cost_cents: 9 })
    await backdate(run.id, 1)
    const yesterday = await day(1)
    const first = await call(t.app, 'GET', `${base}/dashboard?days=7`, { token: user.token })
    expect(first.body.series.find((d: any) => d.date === yesterday)).toMatchObject({ cost_cents: 9, runs_succeeded: 1 })
    const stored = await t.ctx.db.many('SELECT to_char(day, \'YYYY-MM-DD\') AS day, cost_cents FROM run_day_totals WHERE company_id = $1', [companyId])
    expect(stored).toEqual([{ day: yesterday, cost_cents: 9 }])
    const days = await t.ctx.db.one('SELECT count(*)::int AS n, max(day) < current_date AS past FROM run_days WHERE company_id = $1', [companyId])
    expect(days!.past).toBe(true) // today is never stored
    // The stored row is what later reads use.
    await t.ctx.db.query('UPDATE run_day_totals SET cost_cents = 90 WHERE company_id = $1', [companyId])
    const again = await call(t.app, 'GET', `${base}/dashboard?days=7`, { token: user.token })
    expect(again.body.series.find((d: any) => d.date === yesterday).cost_cents).toBe(90)
  })

  it('adds up a past day live while one of its runs is queued or running, and stores it once finished', async () => {
    const { user, companyId, base, agent } = await setup()
    const done = await finishRun(t.app, user.token, companyId, agent.id, { cost_cents: 4 })
    await backdate(done.id, 2)
    const task = await createTask(t.app, user.token, companyId, { status: 'backlog' })
    const woken = await call(t.app, 'POST', `${base}/agents/${agent.id}/wake`, { token: user.token, body: { task_id: task.id } })
    await backdate(woken.body.id, 2)
    const twoDaysAgo = await day(2)
    const before = await call(t.app, 'GET', `${base}/dashboard?days=7`, { token: user.token })
    expect(before.body.series.find((d: any) => d.date === twoDaysAgo).cost_cents).toBe(4)
    expect(await t.ctx.db.one('SELECT 1 AS stored FROM run_days WHERE company_id = $1 AND day = $2::date', [companyId, twoDaysAgo])).toBeNull()

    const claimed = await call(t.app, 'POST', `${base}/runs/claim`, { token: user.token, body: { runner_id: 'r' } })
    expect(claimed.body.run.id).toBe(woken.body.id)
    await call(t.app, 'PATCH', `${base}/runs/${woken.body.id}`, { token: user.token, body: { runner_id: 'r', status: 'failed', cost_cents: 6 } })
    const after = await call(t.app, 'GET', `${base}/dashboard?days=7`, { token: user.token })
    expect(after.body.series.find((d: any) => d.date === twoDaysAgo)).toMatchObject({ cost_cents: 10, runs_failed: 1, runs_succeeded: 1 })
    expect(await t.ctx.db.one('SELECT 1 AS stored FROM run_days WHERE company_id = $1 AND day = $2::date', [companyId, twoDaysAgo])).toEqual({ stored: 1 })
    const costs = await call(t.app, 'GET', `${base}/costs?month=${twoDaysAgo.slice(0, 7)}`, { token: user.token })
    expect(costs.body.by_day.find((d: any) => d.date === twoDaysAgo).cost_cents).toBe(10)
    expect(costs.body.by_agent).toEqual([expect.objectContaining({ agent_id: agent.id, cost_cents: 10, runs: 2 })])
  })

  it('two readers storing the same days at once agree', async () => {
    const { user, companyId, base, agent } = await setup()
    const run = await finishRun(t.app, user.token, companyId, agent.id, { cost_cents: 3 })
    await backdate(run.id, 3)
    const month = (await day(3)).slice(0, 7)
    const answers = await Promise.all([1, 2, 3, 4].map(() => call(t.app, 'GET', `${base}/costs?month=${month}`, { token: user.token })))
    for (const r of answers) expect(r.body.total_cents).toBe(3)
    const rows = await t.ctx.db.one('SELECT count(*)::int AS n FROM run_day_totals WHERE company_id = $1', [companyId])
    expect(rows!.n).toBe(1)
  })

  it('forgets a stored day when runs behind it change: back-dated rows, a task moved to another project', async () => {
    const { user, companyId, base, agent } = await setup()
    const yesterday = await day(1)
    const empty = await call(t.app, 'GET', `${base}/dashboard?days=7`, { token: user.token })
    expect(empty.body.series.find((d: any) => d.date === yesterday).cost_cents).toBe(0)
    expect(await t.ctx.db.one('SELECT 1 AS stored FROM run_days WHERE company_id = $1 AND day = $2::date', [companyId, yesterday])).toEqual({ stored: 1 })

    const web = await call(t.app, 'POST', `${base}/projects`, { token: user.token, body: { name: 'Web' } })
    const app = await call(t.app, 'POST', `${base}/projects`, { token: user.token, body: { name: 'App' } })
    const task = await createTask(t.app, user.token, companyId, { status: 'backlog', project_id: web.body.id })
    const run = await finishRun(t.app, user.token, companyId, agent.id, { cost_cents: 12, task_id: task.id })
    await backdate(run.id, 1)
    const month = yesterday.slice(0, 7)
    const moved = await call(t.app, 'GET', `${base}/costs?month=${month}`, { token: user.token })
    expect(moved.body.by_day.find((d: any) => d.date === yesterday).cost_cents).toBe(12)
    expect(moved.body.by_project).toEqual([{ project_id: web.body.id, name: 'Web', cost_cents: 12 }])

    await call(t.app, 'PATCH', `${base}/tasks/${task.id}`, { token: user.token, body: { project_id: app.body.id } })
    const after = await call(t.app, 'GET', `${base}/costs?month=${month}`, { token: user.token })
    expect(after.body.by_project).toEqual([{ project_id: app.body.id, name: 'App', cost_cents: 12 }])
  })
})
