// run_totals and task_days are kept by triggers in the same transaction as
// every run and task write. After each kind of write they must equal a fresh count of the rows
// behind them, and the dashboard, costs and agent spend must read them.
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

const TOTALS = `to_char(day, 'YYYY-MM-DD') AS day, agent_id, project_id, runs::int, runs_succeeded::int, runs_failed::int,
  cost_cents::int, tokens_in::int, tokens_out::int, plan_cost_cents::int`

/** The stored totals of a company (rows that add up to nothing left out), and a fresh count. */
async function totalsAndRecount(companyId: string) {
  const stored = await t.ctx.db.many(
    `SELECT ${TOTALS} FROM (
       SELECT day, agent_id, project_id, sum(runs) AS runs, sum(runs_succeeded) AS runs_succeeded, sum(runs_failed) AS runs_failed,
              sum(cost_cents) AS cost_cents, sum(tokens_in) AS tokens_in, sum(tokens_out) AS tokens_out, sum(plan_cost_cents) AS plan_cost_cents
         FROM run_totals WHERE company_id = $1 GROUP BY 1, 2, 3) slots -- a row per connection slot: their sum
      WHERE runs <> 0 ORDER BY 1, 2, 3 NULLS FIRST`,
    [companyId],
  )
  const recount = await t.ctx.db.many(
    `SELECT ${TOTALS} FROM (
       SELECT (r.created_at AT TIME ZONE 'UTC')::date AS day, r.agent_id, tk.project_id, count(*) AS runs,
              count(*) FILTER (WHERE r.status = 'succeeded') AS runs_succeeded, count(*) FILTER (WHERE r.status = 'failed') AS runs_failed,
              sum(r.cost_cents) AS cost_cents, sum(r.tokens_in) AS tokens_in, sum(r.tokens_out) AS tokens_out,
              coalesce(sum(r.cost_cents) FILTER (WHERE r.billing = 'plan'), 0) AS plan_cost_cents
         FROM runs r LEFT JOIN tasks tk ON tk.id = r.task_id WHERE r.company_id = $1 GROUP BY 1, 2, 3) x
      ORDER BY 1, 2, 3 NULLS FIRST`,
    [companyId],
  )
  return { stored, recount }
}

async function expectTotalsTrue(companyId: string) {
  const { stored, recount } = await totalsAndRecount(companyId)
  expect(stored).toEqual(recount)
  return stored
}

async function day(offset: number) {
  return (await t.ctx.db.one<{ d: string }>("SELECT to_char(current_date - $1::int, 'YYYY-MM-DD') AS d", [offset]))!.d
}

describe('run totals', () => {
  it('follow queueing, reports and finishing, and feed the dashboard, costs and agent spend', async () => {
    const { user, companyId, base, agent } = await setup()
    const today = await day(0)
    const woken = await call(t.app, 'POST', `${base}/agents/${agent.id}/wake`, { token: user.token, body: {} })
    expect(woken.status).toBe(201)
    expect(await expectTotalsTrue(companyId)).toEqual([expect.objectContaining({ day: today, runs: 1, cost_cents: 0 })])

    await call(t.app, 'POST', `${base}/runs/claim`, { token: user.token, body: { runner_id: 'r' } })
    const progress = await call(t.app, 'PATCH', `${base}/runs/${woken.body.id}`, { token: user.token, body: { runner_id: 'r', cost_cents: 5, tokens_in: 7 } })
    expect(progress.status).toBe(200)
    expect(await expectTotalsTrue(companyId)).toEqual([expect.objectContaining({ runs: 1, cost_cents: 5, tokens_in: 7, runs_succeeded: 0 })])
    await call(t.app, 'PATCH', `${base}/runs/${woken.body.id}`, { token: user.token, body: { runner_id: 'r', status: 'succeeded', cost_cents: 8 } })
    await finishRun(t.app, user.token, companyId, agent.id, { cost_cents: 3, status: 'failed' })
    expect(await expectTotalsTrue(companyId)).toEqual([expect.objectContaining({ runs: 2, runs_succeeded: 1, runs_failed: 1, cost_cents: 11 })])

    const dash = await call(t.app, 'GET', `${base}/dashboard?days=7`, { token: user.token })
    expect(dash.body.spend_mtd_cents).toBe(11)
    expect(dash.body.series.at(-1)).toMatchObject({ date: today, cost_cents: 11, runs_succeeded: 1, runs_failed: 1 })
    const costs = await call(t.app, 'GET', `${base}/costs`, { token: user.token })
    expect(costs.body.total_cents).toBe(11)
    expect(costs.body.by_agent).toEqual([expect.objectContaining({ agent_id: agent.id, cost_cents: 11, runs: 2 })])
    const record = await call(t.app, 'GET', `${base}/agents/${agent.id}`, { token: user.token })
    expect(record.body.spend_mtd_cents).toBe(11)
  })

  it('move with a back-dated run, to the day and month it now belongs to', async () => {
    const { user, companyId, base, agent } = await setup()
    const run = await finishRun(t.app, user.token, companyId, agent.id, { cost_cents: 9 })
    const fortyDaysAgo = await day(40)
    await t.ctx.db.query("UPDATE runs SET created_at = created_at - interval '40 days' WHERE id = $1", [run.id])
    expect(await expectTotalsTrue(companyId)).toEqual([expect.objectContaining({ day: fortyDaysAgo, cost_cents: 9 })])
    const dash = await call(t.app, 'GET', `${base}/dashboard?days=30`, { token: user.token })
    expect(dash.body.series.every((d: any) => d.cost_cents === 0)).toBe(true)
    const costs = await call(t.app, 'GET', `${base}/costs?month=${fortyDaysAgo.slice(0, 7)}`, { token: user.token })
    expect(costs.body.by_day.find((d: any) => d.date === fortyDaysAgo).cost_cents).toBe(9)
  })

  it('follow a task to another project, and leave every project when it is deleted', async () => {
    const { user, companyId, base, agent } = await setup()
    const web = await call(t.app, 'POST', `${base}/projects`, { token: user.token, body: { name: 'Web' } })
    const app = await call(t.app, 'POST', `${base}/projects`, { token: user.token, body: { name: 'App' } })
    const task = await createTask(t.app, user.token, companyId, { status: 'backlog', project_id: web.body.id })
    await finishRun(t.app, user.token, companyId, agent.id, { cost_cents: 12, task_id: task.id })
    const before = await call(t.app, 'GET', `${base}/costs`, { token: user.token })
    expect(before.body.by_project).toEqual([{ project_id: web.body.id, name: 'Web', cost_cents: 12 }])

    await call(t.app, 'PATCH', `${base}/tasks/${task.id}`, { token: user.token, body: { project_id: app.body.id } })
    await expectTotalsTrue(companyId)
    const moved = await call(t.app, 'GET', `${base}/costs`, { token: user.token })
    expect(moved.body.by_project).toEqual([{ project_id: app.body.id, name: 'App', cost_cents: 12 }])

    expect((await call(t.app, 'DELETE', `${base}/tasks/${task.id}`, { token: user.token })).status).toBe(204)
    expect(await expectTotalsTrue(companyId)).toEqual([expect.objectContaining({ project_id: null, cost_cents: 12 })])
    const after = await call(t.app, 'GET', `${base}/costs`, { token: user.token })
    expect(after.body.by_project).toEqual([])
    expect(after.body.total_cents).toBe(12)
  })

  it('stay true when many runners finish runs of many agents at once', async () => {
    const { user, companyId, base } = await setup()
    const agents = await Promise.all([1, 2, 3, 4].map((n) => hireAgent(t.app, user.token, companyId, { name: `Worker ${n}` })))
    for (const a of agents) {
      for (let i = 0; i < 3; i++) {
        const task = await createTask(t.app, user.token, companyId, { status: 'backlog' })
        await call(t.app, 'POST', `${base}/agents/${a.id}/wake`, { token: user.token, body: { task_id: task.id } })
      }
    }
    const runner = async (name: string) => {
      for (;;) {
        const claimed = await call(t.app, 'POST', `${base}/runs/claim`, { token: user.token, body: { runner_id: name } })
        if (claimed.status === 204) return
        const id = claimed.body.run.id
        await call(t.app, 'PATCH', `${base}/runs/${id}`, { token: user.token, body: { runner_id: name, cost_cents: 2 } })
        await call(t.app, 'PATCH', `${base}/runs/${id}`, { token: user.token, body: { runner_id: name, status: 'succeeded', cost_cents: 4 } })
      }
    }
    await Promise.all(['a', 'b', 'c', 'd'].map(runner))
    const stored = await expectTotalsTrue(companyId)
    expect(stored.reduce((sum: number, row: any) => sum + row.cost_cents, 0)).toBe(48)
    expect(stored.reduce((sum: number, row: any) => sum + row.runs_succeeded, 0)).toBe(12)
  })
})

describe('task days', () => {
  it('count tasks created and completed per day through creates, completions, reopenings and deletes', async () => {
    const { user, companyId, base } = await setup()
    const today = await day(0)
    const series = async () => (await call(t.app, 'GET', `${base}/dashboard?days=7`, { token: user.token })).body.series.at(-1)
    const a = await createTask(t.app, user.token, companyId, { status: 'todo' })
    const b = await createTask(t.app, user.token, companyId, { status: 'todo' })
    expect(await series()).toMatchObject({ date: today, tasks_created: 2, tasks_completed: 0 })
    await call(t.app, 'PATCH', `${base}/tasks/${a.id}`, { token: user.token, body: { status: 'done' } })
    await call(t.app, 'PATCH', `${base}/tasks/${b.id}`, { token: user.token, body: { status: 'done' } })
    expect(await series()).toMatchObject({ tasks_created: 2, tasks_completed: 2 })
    await call(t.app, 'PATCH', `${base}/tasks/${b.id}`, { token: user.token, body: { status: 'todo' } })
    await call(t.app, 'DELETE', `${base}/tasks/${a.id}`, { token: user.token })
    expect(await series()).toMatchObject({ tasks_created: 1, tasks_completed: 0 })
    await t.ctx.db.query("UPDATE tasks SET created_at = created_at - interval '2 days' WHERE id = $1", [b.id])
    const recount = await t.ctx.db.many(
      `SELECT to_char(created_at::date, 'YYYY-MM-DD') AS day, count(*)::int AS created FROM tasks WHERE company_id = $1 GROUP BY 1`,
      [companyId],
    )
    const stored = await t.ctx.db.many(`SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(created)::int AS created FROM task_days WHERE company_id = $1 GROUP BY day HAVING sum(created) <> 0`, [companyId])
    expect(stored).toEqual(recount)
    expect(recount).toEqual([{ day: await day(2), created: 1 }])
  })
})
