// The month-end forecast (API-DECISIONS.md "Spend control", docs/runs.md "Forecast"): spend so
// far / elapsed fraction of the month, and each budgeted agent's budget_reached_on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FORECAST_METHOD, type ForecastRow, forecastSql, project } from '../../src/domain/insights/forecast.ts'
import { createCompany } from '../fixtures.ts'
import { call, createUser, type TestApp, testApp } from '../helpers.ts'
import { insertRun } from '../company/support.ts'

let t: TestApp

/** The forecast of the month starting `monthStart` as it would be seen at `now`: the statement the API reads, then its arithmetic. */
async function forecast(db: TestApp['ctx']['db'], companyId: string, monthStart: string, now: Date) {
  return project(await db.many<ForecastRow>(forecastSql('$1', '$2'), [companyId, monthStart]), monthStart, now)
}

beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

async function agent(companyId: string, name: string, budget: number, status = 'idle'): Promise<string> {
  const row = await t.ctx.db.one<{ id: string }>(
    `INSERT INTO agents (company_id, name, monthly_budget_cents, status, adapter) VALUES ($1, $2, $3, $4, 'simulated') RETURNING id`,
    [companyId, name, budget, status],
  )
  return row!.id
}

async function spend(companyId: string, agentId: string, day: string, costCents: number) {
  await insertRun(t.ctx, { companyId, agentId, status: 'succeeded', costCents, createdAt: `${day}T10:00:00Z` })
}

describe('forecast', () => {
  it('projects spend at the pace so far and dates each budget', async () => {
    const user = await createUser(t.ctx, 'Forecaster')
    const company = await createCompany(t.app, user.token)
    const paced = await agent(company.id, 'Paced', 600)
    const unbudgeted = await agent(company.id, 'Free', 0)
    const over = await agent(company.id, 'Over', 100)
    const slow = await agent(company.id, 'Slow', 10_000)
    const untouched = await agent(company.id, 'Untouched', 500)
    await agent(company.id, 'Gone', 500, 'terminated')
    await spend(company.id, paced, '2026-03-05', 100)
    await spend(company.id, paced, '2026-03-08', 200)
    await spend(company.id, unbudgeted, '2026-03-02', 50)
    await spend(company.id, over, '2026-03-02', 60)
    await spend(company.id, over, '2026-03-03', 40)
    await spend(company.id, over, '2026-03-04', 50)
    await spend(company.id, slow, '2026-03-09', 10)
    await spend(company.id, paced, '2026-02-27', 999) // another month

    // 10 of March's 31 days have passed: the pace so far goes on for 31/10 as long.
    const f = await forecast(t.ctx.db, company.id, '2026-03-01', new Date('2026-03-11T00:00:00Z'))
    expect(f.method).toBe(FORECAST_METHOD)
    expect(f.month_end_cents).toBe(Math.round((300 + 50 + 150 + 10) * 3.1))
    expect(f.by_agent).toEqual([
      { agent_id: paced, month_end_cents: 930, budget_reached_on: '2026-03-21' }, // 600 at 30/day: day 20 after the 1st
      { agent_id: over, month_end_cents: 465, budget_reached_on: '2026-03-03' }, // reached: 60 + 40
      { agent_id: unbudgeted, month_end_cents: 155, budget_reached_on: null },
      { agent_id: slow, month_end_cents: 31, budget_reached_on: null }, // after the month's end
      { agent_id: untouched, month_end_cents: 0, budget_reached_on: null },
    ])

    // A past month is its total; a month to come, nothing yet.
    const past = await forecast(t.ctx.db, company.id, '2026-03-01', new Date('2026-05-01T00:00:00Z'))
    expect(past.month_end_cents).toBe(510)
    const future = await forecast(t.ctx.db, company.id, '2026-03-01', new Date('2026-01-15T00:00:00Z'))
    expect(future.month_end_cents).toBe(0)
    // The first hours of a month count as one day.
    const early = await forecast(t.ctx.db, company.id, '2026-03-01', new Date('2026-03-01T01:00:00Z'))
    expect(early.by_agent.find((a) => a.agent_id === paced)!.month_end_cents).toBe(300 * 31)
  })

  it('is on GET .../costs and the dashboard', async () => {
    const user = await createUser(t.ctx, 'Forecast Reader')
    const company = await createCompany(t.app, user.token)
    const budgeted = await agent(company.id, 'Budgeted', 1000)
    await insertRun(t.ctx, { companyId: company.id, agentId: budgeted, status: 'succeeded', costCents: 40 })
    const costs = await call(t.app, 'GET', `/api/companies/${company.id}/costs`, { token: user.token })
    expect(costs.status).toBe(200)
    expect(costs.body.forecast).toMatchObject({ method: FORECAST_METHOD, by_agent: [{ agent_id: budgeted }] })
    expect(costs.body.forecast.month_end_cents).toBeGreaterThanOrEqual(40)
    const dash = await call(t.app, 'GET', `/api/companies/${company.id}/dashboard`, { token: user.token })
    expect(dash.status).toBe(200)
    // Read a moment later, the projection may differ by rounding only.
    expect(dash.body.forecast).toMatchObject({ method: FORECAST_METHOD, by_agent: [{ agent_id: budgeted }] })
    expect(Math.abs(dash.body.forecast.month_end_cents - costs.body.forecast.month_end_cents)).toBeLessThanOrEqual(1)
    const old = await call(t.app, 'GET', `/api/companies/${company.id}/costs?month=2020-01`, { token: user.token })
    expect(old.body.forecast).toEqual({ month_end_cents: 0, by_agent: [{ agent_id: budgeted, month_end_cents: 0, budget_reached_on: null }], method: FORECAST_METHOD })
  })
})
