import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCompany, createTask, hireAgent } from '../fixtures.ts'
import { call, createUser, type TestApp, testApp } from '../helpers.ts'
import { finishRun } from '../approvals/flow.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

async function setup(budget = 0) {
  const user = await createUser(t.ctx, 'Viewer')
  const company = await createCompany(t.app, user.token, { monthly_budget_cents: budget })
  return { user, companyId: company.id as string, base: `/api/companies/${company.id}` }
}

/** A run finished through the API, then back-dated to `daysAgo` days before now. */
async function pastRun(s: { user: { token: string }; companyId: string }, agentId: string, fields: { daysAgo: number; cost: number; status: 'succeeded' | 'failed' }) {
  const run = await finishRun(t.app, s.user.token, s.companyId, agentId, { cost_cents: fields.cost, status: fields.status })
  await t.ctx.db.query(
    `UPDATE runs SET created_at = created_at - make_interval(days => $2), ended_at = ended_at - make_interval(days => $2) WHERE id = $1`,
    [run.id, fields.daysAgo],
  )
  return run.id as string
}

async function today() {
  return (await t.ctx.db.one<{ d: string }>("SELECT to_char(current_date, 'YYYY-MM-DD') AS d"))!.d
}

describe('GET /dashboard', () => {
  it('answers every field, with a daily series covering the whole range', async () => {
    const c = await setup(5000)
    const { user, companyId, base } = c
    const busy = await hireAgent(t.app, user.token, companyId, { name: 'Busy' })
    const paused = await hireAgent(t.app, user.token, companyId, { name: 'Resting' })
    const gone = await hireAgent(t.app, user.token, companyId, { name: 'Gone' })
    await call(t.app, 'POST', `${base}/agents/${paused.id}/pause`, { token: user.token })
    await call(t.app, 'POST', `${base}/agents/${gone.id}/terminate`, { token: user.token })
    await hireAgent(t.app, user.token, companyId, { name: 'Pending', request_approval: true })

    await createTask(t.app, user.token, companyId, { status: 'blocked', priority: 'urgent' })
    await createTask(t.app, user.token, companyId, { status: 'done', priority: 'low' })
    const blockedByOther = await createTask(t.app, user.token, companyId, { status: 'blocked' })
    // As if someone else had created it (no endpoint adds a second member).
    await t.ctx.db.query('UPDATE tasks SET created_by_user_id = NULL WHERE id = $1', [blockedByOther.id])
    const work = await createTask(t.app, user.token, companyId, { status: 'todo', priority: 'high' })
    await t.ctx.db.query("UPDATE tasks SET created_at = now() - interval '3 days' WHERE id = $1", [work.id])

    await pastRun(c, busy.id, { daysAgo: 2, cost: 7, status: 'failed' })
    await pastRun(c, busy.id, { daysAgo: 40, cost: 1000, status: 'succeeded' })
    await finishRun(t.app, user.token, companyId, busy.id, { cost_cents: 11 })
    const woken = await call(t.app, 'POST', `${base}/agents/${busy.id}/wake`, { token: user.token, body: { task_id: work.id } })
    const claimed = await call(t.app, 'POST', `${base}/runs/claim`, { token: user.token, body: { runner_id: 'x' } })
    expect(claimed.body.run.id).toBe(woken.body.id)

    const r = await call(t.app, 'GET', `${base}/dashboard`, { token: user.token })
    expect(r.status).toBe(200)
    const d = r.body
    expect(d).toMatchObject({
      agents_total: 3, agents_running: 1, agents_paused: 1,
      tasks_blocked: 2, tasks_in_progress: 1, pending_approvals: 1,
      monthly_budget_cents: 5000, range_days: 14,
    })
    expect(d.tasks_by_status).toEqual({ backlog: 0, todo: 0, in_progress: 1, in_review: 0, blocked: 2, done: 1, cancelled: 0 })
    expect(d.tasks_by_priority).toEqual({ urgent: 1, high: 1, medium: 1, low: 1, none: 0 })
    // The run 2 days ago may fall in last month early in a month; the 40-day-old one never counts.
    const monthStart = (await t.ctx.db.one<{ twoDaysAgoThisMonth: boolean }>(
      `SELECT (now() - interval '2 days') >= date_trunc('month', now()) AS "twoDaysAgoThisMonth"`,
    ))!
    expect(d.spend_mtd_cents).toBe(11 + (monthStart.twoDaysAgoThisMonth ? 7 : 0))

    expect(d.series).toHaveLength(14)
    expect(d.series.at(-1).date).toBe(await today())
    expect(Object.keys(d.series[0]).sort()).toEqual(['cost_cents', 'date', 'runs_failed', 'runs_succeeded', 'tasks_completed', 'tasks_created'])
    expect(d.series.at(-1)).toMatchObject({ cost_cents: 11, runs_succeeded: 1, runs_failed: 0, tasks_completed: 1, tasks_created: 3 })
    expect(d.series.at(-3)).toMatchObject({ cost_cents: 7, runs_failed: 1, tasks_created: 0 })
    expect(d.series.at(-4)).toMatchObject({ cost_cents: 0, tasks_created: 1 })
    expect(d.series.reduce((sum: number, day: any) => sum + day.cost_cents, 0)).toBe(18)

    expect(d.active_runs.map((run: any) => run.id)).toEqual([woken.body.id])
    expect(d.active_runs[0].transcript).toBeUndefined()
    expect(d.for_you.open_tasks).toBe(2)
    expect(d.for_you.blocked_tasks).toBe(1)
    expect(d.for_you.recent.map((task: any) => task.status).sort()).toEqual(['blocked', 'in_progress'])
    // Records read as JSON keep the API's timestamps: UTC, six fractional digits.
    const stamps = [...d.active_runs.flatMap((run: any) => [run.created_at, run.started_at]), ...d.for_you.recent.flatMap((task: any) => [task.created_at, task.updated_at])]
    expect(stamps.length).toBeGreaterThan(4)
    for (const stamp of stamps) expect(stamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/)
  })

  it('accepts 7 and 30 days, anything else is 422', async () => {
    const { user, base } = await setup()
    for (const days of [7, 30]) {
      const r = await call(t.app, 'GET', `${base}/dashboard?days=${days}`, { token: user.token })
      expect(r.body.range_days).toBe(days)
      expect(r.body.series).toHaveLength(days)
      expect(r.body.series.every((day: any) => day.cost_cents === 0)).toBe(true)
    }
    for (const days of ['10', '0', 'x']) {
      const r = await call(t.app, 'GET', `${base}/dashboard?days=${days}`, { token: user.token })
      expect(r.status).toBe(422)
      expect(r.body.error.code).toBe('VALIDATION_ERROR')
      expect(r.body.error.details.errors[0].loc).toEqual(['query', 'days'])
    }
  })

  it('active_runs holds at most the 20 newest queued or running runs', async () => {
    const { user, companyId, base } = await setup()
    const agent = await hireAgent(t.app, user.token, companyId)
    const runs: string[] = []
    for (let i = 0; i < 25; i++) {
      const task = await createTask(t.app, user.token, companyId, { status: 'done' })
      runs.push((await call(t.app, 'POST', `${base}/agents/${agent.id}/wake`, { token: user.token, body: { task_id: task.id } })).body.id)
    }
    const r = await call(t.app, 'GET', `${base}/dashboard`, { token: user.token })
    expect(r.body.active_runs.map((run: any) => run.id)).toEqual(runs.slice(5).reverse())
    expect(r.body.for_you).toEqual({ blocked_tasks: 0, open_tasks: 0, recent: [] })
  })
})

describe('GET /costs', () => {
  it('breaks the current month down by agent, project and day', async () => {
    const c = await setup(900)
    const { user, companyId, base } = c
    const a = await hireAgent(t.app, user.token, companyId, { name: 'Alpha' })
    const b = await hireAgent(t.app, user.token, companyId, { name: 'Beta' })
    const project = await call(t.app, 'POST', `${base}/projects`, { token: user.token, body: { name: 'Web' } })
    const task = await createTask(t.app, user.token, companyId, { project_id: project.body.id, status: 'backlog' })
    await finishRun(t.app, user.token, companyId, a.id, { cost_cents: 30, task_id: task.id })
    await finishRun(t.app, user.token, companyId, a.id, { cost_cents: 20 })
    await finishRun(t.app, user.token, companyId, b.id, { cost_cents: 5, status: 'failed' })
    await pastRun(c, b.id, { daysAgo: 45, cost: 999, status: 'succeeded' })

    const r = await call(t.app, 'GET', `${base}/costs`, { token: user.token })
    expect(r.status).toBe(200)
    const month = (await today()).slice(0, 7)
    expect(r.body).toMatchObject({ month, total_cents: 55, budget_cents: 900 })
    expect(r.body.by_agent).toEqual([
      { agent_id: a.id, name: 'Alpha', cost_cents: 50, plan_cents: 0, tokens_in: 20, tokens_out: 10, runs: 2 },
      { agent_id: b.id, name: 'Beta', cost_cents: 5, plan_cents: 0, tokens_in: 10, tokens_out: 5, runs: 1 },
    ])
    expect(r.body.by_project).toEqual([{ project_id: project.body.id, name: 'Web', cost_cents: 30 }])
    const daysInMonth = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5)), 0)).getUTCDate()
    expect(r.body.by_day).toHaveLength(daysInMonth)
    expect(r.body.by_day[0].date).toBe(`${month}-01`)
    const date = await today()
    expect(r.body.by_day.filter((d: any) => d.cost_cents > 0)).toEqual([{ date, cost_cents: 55, plan_cents: 0 }])
  })

  it('answers another month, with INVALID_MONTH and 422 exactly as specified', async () => {
    const c = await setup()
    const { user, companyId, base } = c
    const a = await hireAgent(t.app, user.token, companyId)
    await pastRun(c, a.id, { daysAgo: 0, cost: 3, status: 'succeeded' })
    await t.ctx.db.query("UPDATE runs SET created_at = '2025-02-10T12:00:00Z' WHERE agent_id = $1", [a.id])
    const feb = await call(t.app, 'GET', `${base}/costs?month=2025-02`, { token: user.token })
    expect(feb.body).toMatchObject({ month: '2025-02', total_cents: 3 })
    expect(feb.body.by_day).toHaveLength(28)
    expect(feb.body.by_day[9]).toEqual({ date: '2025-02-10', cost_cents: 3, plan_cents: 0 })
    const empty = await call(t.app, 'GET', `${base}/costs?month=2025-03`, { token: user.token })
    expect(empty.body).toMatchObject({ total_cents: 0, by_agent: [], by_project: [] })
    for (const month of ['2025-13', '2025-00']) {
      const r = await call(t.app, 'GET', `${base}/costs?month=${month}`, { token: user.token })
      expect(r.status).toBe(400)
      expect(r.body.error.code).toBe('INVALID_MONTH')
    }
    for (const month of ['2025-1', '202501', 'abc', '2025-01-01', '0000-01']) {
      const r = await call(t.app, 'GET', `${base}/costs?month=${month}`, { token: user.token })
      expect(r.status).toBe(422)
      expect(r.body.error.details.errors[0].loc).toEqual(['query', 'month'])
    }
    // The shape is right but there was no year 0: the message says so, not "out of range".
    const zero = await call(t.app, 'GET', `${base}/costs?month=0000-12`, { token: user.token })
    expect(zero.body.error.message).toBe('month: Year must be 0001 or later')
  })
})

describe('GET /inbox', () => {
  it('lists pending approvals, blocked and in-review tasks, and runs failed in the last 7 days', async () => {
    const c = await setup()
    const { user, companyId, base } = c
    const agent = await hireAgent(t.app, user.token, companyId)
    await hireAgent(t.app, user.token, companyId, { request_approval: true })
    const blocked = await createTask(t.app, user.token, companyId, { status: 'blocked' })
    const review = await createTask(t.app, user.token, companyId, { status: 'in_review' })
    await createTask(t.app, user.token, companyId, { status: 'todo' })
    const recent = await pastRun(c, agent.id, { daysAgo: 1, cost: 0, status: 'failed' })
    await pastRun(c, agent.id, { daysAgo: 8, cost: 0, status: 'failed' })
    await pastRun(c, agent.id, { daysAgo: 1, cost: 0, status: 'succeeded' })

    const r = await call(t.app, 'GET', `${base}/inbox`, { token: user.token })
    expect(r.status).toBe(200)
    expect(r.body.approvals).toEqual([expect.objectContaining({ type: 'hire_agent', status: 'pending' })])
    expect(r.body.tasks.map((task: any) => task.id).sort()).toEqual([blocked.id, review.id].sort())
    expect(r.body.failed_runs.map((run: any) => run.id)).toEqual([recent])
    expect(r.body.failed_runs[0].transcript).toBeUndefined()
  })

  it('holds at most 200 waiting tasks, in the task list order', async () => {
    const { user, companyId, base } = await setup()
    for (let i = 0; i < 210; i++) await createTask(t.app, user.token, companyId, { status: 'blocked' })
    const r = await call(t.app, 'GET', `${base}/inbox`, { token: user.token })
    expect(r.body.tasks).toHaveLength(200)
    expect(r.body.tasks[0].number).toBe(210)
    expect(r.body.tasks.at(-1).number).toBe(11)
  })
})
