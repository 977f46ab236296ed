// Spend control in the browser: hiring with the proposed limits (checked through the API),
// editing one, an agent page following its current run live from a real `shopfloor runner`
// process, the month-end forecast on the costs page and the dashboard, and paused agents saying
// why (the runaway breaker tripped by real claims, a budget reached by a real report) with a link
// to the approval.
import fs from 'node:fs'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ShopfloorClient } from '../../src/client/api.ts'
import { budgetReachedText, thisMonth } from '../../web/src/lib/spend.ts'
import { makeFormatter } from '../../web/src/lib/format.ts'
import { type RunnerProcess, startRunner } from '../runner/harness.ts'
import { tempDir } from '../server-process.ts'
import { type Browser, launchBrowser, narrowTexts, type RunningServer, screenshot, sharedServer, signIn, slowAgent, visit } from './harness.ts'

const PASSWORD = 'correct horse battery'
// The browser's own locale formats the page; the test states figures the same way.
const format = makeFormatter({ locale: 'en-US' })

// An agent command (the process adapter) that works for a few seconds, line by line.
const SLOW_AGENT = slowAgent([
  'Reading the pricing page and last month’s numbers.',
  2.5,
  'SHOPFLOOR_USAGE {"tokens_in": 900, "tokens_out": 150, "cost_cents": 4}',
  'Comparing three plans against the budget.',
  2.5,
  'SHOPFLOOR_USAGE {"tokens_in": 2600, "tokens_out": 700, "cost_cents": 9}',
  'Done: the comparison is in the task.',
  1.5,
])

let server: RunningServer
let browser: Browser
let page: Page
let runner: RunnerProcess | null = null
let client: ShopfloorClient
let companyId = ''
let graceId = ''

const shot = (name: string, fullPage = false) => screenshot(page, name, { fullPage })

/** One run of `agentId` taken by a runner through the claim, as a runner process takes it. */
async function claimFor(agentId: string) {
  return (await client.runs.claim(companyId, { runner_id: 'e2e-runner', agent_ids: [agentId] }))?.run ?? null
}

describe('spend control in the web app', () => {
  beforeAll(async () => {
    server = await sharedServer()
    client = new ShopfloorClient({ baseUrl: server.url })
    const email = `spend-${Date.now().toString(36)}@example.test`
    await client.auth.register({ name: 'Ada Lovelace', email, password: PASSWORD })
    companyId = (await client.companies.create({ name: 'Acme Robotics', task_prefix: 'ACME', monthly_budget_cents: 2000 })).id
    browser = await launchBrowser()
    page = browser.context.pages()[0] ?? (await browser.context.newPage())
    page.setDefaultTimeout(15_000)
    await signIn(page, server.url, email, PASSWORD, 'Acme Robotics')
  })

  afterAll(async () => {
    await runner?.stop()
    await browser?.close()
  })

  it('hires with the proposed spend limits and saves them', async () => {
    await visit(page, `${server.url}/c/${companyId}/agents`)
    await page.getByRole('button', { name: 'Hire agent' }).click()
    const dialog = page.getByRole('dialog', { name: 'Hire an agent' })
    await dialog.getByLabel('Name').fill('Grace')
    await dialog.getByLabel('Title').fill('Pricing analyst')
    await dialog.getByLabel('Works with').selectOption({ label: 'Any command' })
    await dialog.getByLabel(/Monthly budget/).fill('2')
    const limits = dialog.getByRole('group', { name: 'Spend limits' })
    // What a hire proposes: a breaker at 20 runs an hour, pausing on repeats, skipping idle heartbeats, no cap per run.
    expect(await limits.getByLabel(/Runs per hour/).inputValue()).toBe('20')
    expect(await limits.getByLabel(/Cap per run/).inputValue()).toBe('')
    expect(await limits.getByLabel(/Pause on repeats/).isChecked()).toBe(true)
    expect(await limits.getByLabel(/Skip idle heartbeats/).isChecked()).toBe(true)
    // Each says what it does.
    await limits.getByText(/stops a run once its own cost reaches this/).waitFor()
    await limits.getByText(/pauses the agent for approval; 0 = off/).waitFor()
    await shot('hire')
    await dialog.getByRole('button', { name: 'Hire', exact: true }).click()

    await page.getByRole('heading', { name: /Grace/ }).waitFor()
    graceId = page.url().split('/agents/')[1]
    const grace = await client.agents.get(companyId, graceId)
    expect(grace).toMatchObject({ adapter: 'process', monthly_budget_cents: 200, max_run_cost_cents: 0, max_runs_per_hour: 20, pause_on_repeat: true, heartbeat_skip_idle: true })
    const settings = page.getByRole('region', { name: 'Settings' }).getByRole('definition')
    await page.getByRole('region', { name: 'Settings' }).getByText('at most 20, then paused for approval').waitFor()
    expect(await settings.allTextContents()).toEqual(expect.arrayContaining(['No cap', 'Skipped while it has nothing to do']))
  })

  it('edits a spend setting, naming a bad value in words', async () => {
    await visit(page, `${server.url}/c/${companyId}/agents/${graceId}`)
    // Everything above the settings loaded first, so the Edit button stays where it is clicked.
    await page.getByRole('region', { name: 'Recent runs' }).getByText('No runs.').waitFor()
    await page.getByRole('region', { name: 'Open tasks' }).getByText('No task matches.').waitFor()
    await page.locator('[data-agent-forecast]').waitFor()
    const settings = page.getByRole('region', { name: 'Settings' })
    await settings.getByRole('button', { name: 'Edit' }).click()
    const limits = settings.getByRole('group', { name: 'Spend limits' })
    // The edit form shows the agent's current values.
    expect(await limits.getByLabel(/Runs per hour/).inputValue()).toBe('20')
    expect(await limits.getByLabel(/Pause on repeats/).isChecked()).toBe(true)
    await limits.getByLabel(/Runs per hour/).fill('lots')
    await settings.getByRole('button', { name: 'Save' }).click()
    await settings.getByText('Runs per hour: enter a whole number such as 20, or 0 to turn the limit off.').waitFor()
    await limits.getByLabel(/Runs per hour/).fill('30')
    // A heartbeat schedule the scheduler cannot read would never wake the agent: refused in words.
    await settings.getByLabel(/Heartbeat cron/).fill('every morning')
    await settings.getByRole('button', { name: 'Save' }).click()
    await settings.getByText('Heartbeat cron: not a cron expression the scheduler can read (expected 5 or 6 fields, got 2).').waitFor()
    await settings.getByLabel(/Heartbeat cron/).fill('0 9 * * 1-5')
    await limits.getByLabel(/Cap per run/).fill('1.5')
    await limits.getByLabel(/Skip idle heartbeats/).uncheck()
    await settings.getByRole('button', { name: 'Save' }).click()
    await settings.getByText('at most 30, then paused for approval').waitFor()
    await settings.getByText(/^\(next (in \d+ \w+|tomorrow)\)$/).waitFor()
    await settings.getByText('$1.50').waitFor()
    await settings.getByText('Always run').waitFor()
    expect(await client.agents.get(companyId, graceId)).toMatchObject({ max_run_cost_cents: 150, max_runs_per_hour: 30, pause_on_repeat: true, heartbeat_skip_idle: false, heartbeat_cron: '0 9 * * 1-5' })
    // One stored through the API (which takes any text) is pointed out on the agent's page.
    await client.agents.update(companyId, graceId, { heartbeat_cron: 'hourly' })
    await settings.getByText('(not a valid schedule: it never wakes the agent)').waitFor()
    await client.agents.update(companyId, graceId, { heartbeat_cron: null })
  })

  it('edits the fallback models: added, moved, removed, and kept through other edits', async () => {
    const ada = await client.agents.hire(companyId, {
      name: 'Ada', title: 'Writer', adapter: 'agent_cli_1', adapter_config: { model: 'claude-opus-4-1', fallback: [{ model: 'claude-sonnet-4-5' }] },
    })
    await visit(page, `${server.url}/c/${companyId}/agents/${ada.id}`)
    await page.getByRole('region', { name: 'Recent runs' }).getByText('No runs.').waitFor()
    await page.locator('[data-agent-forecast]').waitFor()
    const settings = page.getByRole('region', { name: 'Settings' })
    await settings.getByText('claude-sonnet-4-5', { exact: true }).waitFor()
    await settings.getByRole('button', { name: 'Edit' }).click()
    const fallbacks = settings.getByRole('group', { name: 'Fallback models' })
    await fallbacks.getByText('tried in order on Claude Code when the model is overloaded or over its limit').waitFor()
    expect(await fallbacks.getByLabel('Fallback model 1').inputValue()).toBe('claude-sonnet-4-5')
    await fallbacks.getByRole('button', { name: 'Add a fallback model' }).click()
    await fallbacks.getByLabel('Fallback model 2').fill('claude-haiku-4-5')
    await fallbacks.getByRole('button', { name: 'Add a fallback model' }).click()
    await fallbacks.getByLabel('Fallback model 3').fill('claude-3-7-sonnet')
    // The first cannot go up, the last cannot go down.
    expect(await fallbacks.getByRole('button', { name: 'Move fallback 1 up' }).isDisabled()).toBe(true)
    expect(await fallbacks.getByRole('button', { name: 'Move fallback 3 down' }).isDisabled()).toBe(true)
    await fallbacks.getByRole('button', { name: 'Move fallback 3 up' }).click()
    expect(await fallbacks.getByRole('textbox').evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value)))
      .toEqual(['claude-sonnet-4-5', 'claude-3-7-sonnet', 'claude-haiku-4-5'])
    await fallbacks.getByRole('button', { name: 'Move fallback 1 down' }).click()
    await fallbacks.getByRole('button', { name: 'Remove fallback 2' }).click()
    // An empty line added by mistake is left out.
    await fallbacks.getByRole('button', { name: 'Add a fallback model' }).click()
    await shot('agent-fallbacks')
    await settings.getByRole('button', { name: 'Save' }).click()
    await settings.getByText('claude-3-7-sonnet, then claude-haiku-4-5', { exact: true }).waitFor()
    expect((await client.agents.get(companyId, ada.id)).adapter_config).toEqual({
      model: 'claude-opus-4-1', fallback: [{ model: 'claude-3-7-sonnet' }, { model: 'claude-haiku-4-5' }],
    })

    // Another edit keeps them.
    await settings.getByRole('button', { name: 'Edit' }).click()
    await settings.getByLabel('Title').fill('Senior writer')
    await settings.getByRole('button', { name: 'Save' }).click()
    await settings.getByText('claude-3-7-sonnet, then claude-haiku-4-5', { exact: true }).waitFor()
    expect((await client.agents.get(companyId, ada.id))).toMatchObject({
      title: 'Senior writer', adapter_config: { model: 'claude-opus-4-1', fallback: [{ model: 'claude-3-7-sonnet' }, { model: 'claude-haiku-4-5' }] },
    })

    // On a phone the list fits, its buttons beside each model.
    const phone = await browser.context.newPage()
    await phone.setViewportSize({ width: 390, height: 844 })
    await visit(phone, `${server.url}/c/${companyId}/agents/${ada.id}`)
    await phone.getByRole('region', { name: 'Recent runs' }).getByText('No runs.').waitFor()
    await phone.locator('[data-agent-forecast]').waitFor()
    await phone.getByRole('region', { name: 'Settings' }).getByRole('button', { name: 'Edit' }).click()
    const onPhone = phone.getByRole('group', { name: 'Fallback models' })
    await onPhone.scrollIntoViewIfNeeded()
    const input = await onPhone.getByLabel('Fallback model 1').boundingBox()
    const remove = await onPhone.getByRole('button', { name: 'Remove fallback 1' }).boundingBox()
    expect(Math.abs(input!.y - remove!.y)).toBeLessThan(8)
    expect(input!.width).toBeGreaterThan(150)
    expect(await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0)
    expect(await narrowTexts(phone)).toEqual([])
    await screenshot(phone, 'agent-fallbacks-phone')
    await phone.close()
  })

  it('shows the agent at work: its current run live, recent runs, manager and reports', async () => {
    const linus = await client.agents.hire(companyId, { name: 'Linus', title: 'Data wrangler', reports_to_id: graceId })
    const task = await client.tasks.create(companyId, { title: 'Compare the pricing plans', status: 'todo' })
    await visit(page, `${server.url}/c/${companyId}/agents/${graceId}`)
    const now = page.getByRole('region', { name: 'Current run' })
    await now.getByText('Not working on anything right now.').waitFor()
    // Direct reports, linked.
    await page.getByRole('list', { name: 'Direct reports' }).getByRole('link', { name: 'Linus' }).waitFor()

    const dir = tempDir('shopfloor-spend-agent-')
    const script = path.join(dir, 'agent.mjs')
    fs.writeFileSync(script, SLOW_AGENT)
    const key = await client.apiKeys.create({ name: 'e2e runner' })
    runner = startRunner(
      ['--url', server.url, '--company', companyId, '--runner-id', 'studio-1', '--agent', graceId, '--agent-command', `"${process.execPath}" "${script}"`, '--flush-seconds', '1', '--poll-seconds', '5'],
      { SHOPFLOOR_API_KEY: key.key },
    )
    await client.tasks.update(companyId, task.id, { assignee_agent_id: graceId })

    const run = now.getByRole('listitem', { name: 'Run of Grace' })
    await run.getByText('Reading the pricing page and last month’s numbers.').waitFor({ timeout: 30_000 })
    // Live: the first line is there and the last is not yet; the task it works on is named.
    expect(await run.getByText('Done: the comparison is in the task.').count()).toBe(0)
    await run.getByText('live', { exact: true }).waitFor()
    await run.getByRole('link', { name: `${task.key} Compare the pricing plans` }).waitFor()
    expect(await run.textContent()).toContain(`on ${task.key} Compare the pricing plans`)
    await run.getByText('Comparing three plans against the budget.').waitFor()
    await shot('agent', true)
    await run.getByText('Done: the comparison is in the task.').waitFor()
    await now.getByText('Not working on anything right now.').waitFor({ timeout: 30_000 })

    // The finished run among the recent ones: outcome, task key and cost.
    const recent = page.getByRole('region', { name: 'Recent runs' }).getByRole('row').filter({ hasText: task.key })
    await recent.getByText('Succeeded').waitFor()
    await recent.getByRole('cell', { name: format.money(9) }).waitFor()
    // Spend against the budget, with the month-end projection and when the budget is reached.
    const costs = await client.insights.costs(companyId)
    const mine = costs.forecast.by_agent.find((row) => row.agent_id === graceId)!
    expect(mine.month_end_cents).toBeGreaterThanOrEqual(9)
    const budget = page.getByRole('region', { name: 'Budget' })
    await expect.poll(() => budget.locator('[data-agent-forecast]').textContent())
      .toBe(`Month end: ${format.money(mine.month_end_cents)}; ${budgetReachedText(format, 200, mine.budget_reached_on, thisMonth())}`)

    // The report's page names its manager.
    await page.getByRole('list', { name: 'Direct reports' }).getByRole('link', { name: 'Linus' }).click()
    await page.getByRole('heading', { name: /Linus/ }).waitFor()
    expect(page.url()).toContain(linus.id)
    await page.getByRole('region', { name: 'Team' }).getByRole('link', { name: 'Grace' }).waitFor()
  })

  it('says why an agent tripped by the runaway breaker is paused and links to the approval', async () => {
    const hopper = await client.agents.hire(companyId, { name: 'Hopper', max_runs_per_hour: 1 })
    await client.agents.wake(companyId, hopper.id, { reason: 'First look' })
    const first = await claimFor(hopper.id)
    expect(first).not.toBeNull()
    await client.runs.report(companyId, first!.id, { runner_id: 'e2e-runner', status: 'succeeded', summary: 'Looked.' })
    await client.agents.wake(companyId, hopper.id, { reason: 'Second look' })
    // The second start within the hour trips the breaker: no run, the agent paused, an approval opened.
    expect(await claimFor(hopper.id)).toBeNull()
    expect((await client.agents.get(companyId, hopper.id)).status).toBe('paused')
    const [approval] = (await client.approvals.list(companyId, { status: 'pending' })).filter((a) => a.agent_id === hopper.id)
    expect(approval.type).toBe('action')

    await visit(page, `${server.url}/c/${companyId}/agents/${hopper.id}`)
    const why = page.getByRole('note', { name: 'Why paused' })
    await why.getByText(`Hopper started 1 run in the last 60 minutes, its limit (max_runs_per_hour 1)`).waitFor()
    await why.getByRole('link', { name: 'See the approval' }).click()
    await page.waitForURL(new RegExp(`/approvals#approval-${approval.id}$`))
    const card = page.locator(`article[data-approval="${approval.id}"]`)
    expect(await card.getAttribute('aria-current')).toBe('true')
    await card.getByText(/approving resumes it/).waitFor()
    await card.getByRole('button', { name: 'Approve' }).click()
    await expect.poll(async () => (await client.agents.get(companyId, hopper.id)).status).toBe('idle')
  })

  it('says a paused agent reached its monthly budget, with the day on its budget card', async () => {
    const spendy = await client.agents.hire(companyId, { name: 'Spendy', title: 'Researcher', monthly_budget_cents: 100 })
    await client.agents.wake(companyId, spendy.id, { reason: 'Survey the market' })
    const run = await claimFor(spendy.id)
    await client.runs.report(companyId, run!.id, { runner_id: 'e2e-runner', status: 'succeeded', cost_cents: 150 })
    expect((await client.agents.get(companyId, spendy.id)).status).toBe('paused')
    const [approval] = (await client.approvals.list(companyId, { status: 'pending' })).filter((a) => a.agent_id === spendy.id)
    expect(approval.type).toBe('budget_override')

    await visit(page, `${server.url}/c/${companyId}/agents/${spendy.id}`)
    const why = page.getByRole('note', { name: 'Why paused' })
    await why.getByText(`reached its monthly budget (${format.money(150)} of ${format.money(100)} in ${thisMonth()})`).waitFor()
    expect(await why.getByRole('link', { name: 'See the approval' }).getAttribute('href')).toBe(`/c/${companyId}/approvals#approval-${approval.id}`)
    const today = new Date().toISOString().slice(0, 10)
    await page.getByRole('region', { name: 'Budget' }).getByText(`reached its budget on ${format.day(today)}`).waitFor()
    await shot('agent-paused')
  })

  it('shows the forecast on the costs page and the dashboard', async () => {
    const today = new Date().toISOString().slice(0, 10)
    const spendy = (await client.agents.list(companyId)).find((a) => a.name === 'Spendy')!
    const { forecast } = await client.insights.costs(companyId)
    const spendyRow = forecast.by_agent.find((row) => row.agent_id === spendy.id)!
    expect(spendyRow.budget_reached_on).toBe(today)
    const graceRow = forecast.by_agent.find((row) => row.agent_id === graceId)!

    await visit(page, `${server.url}/c/${companyId}/costs`)
    await page.getByRole('region', { name: 'Month-end projection' }).getByText(format.money(forecast.month_end_cents), { exact: true }).waitFor()
    const table = page.getByRole('region', { name: 'Forecast' })
    const spendyLine = table.locator('[data-forecast-agent="Spendy"]')
    await spendyLine.getByText(format.money(spendyRow.month_end_cents), { exact: true }).waitFor()
    await spendyLine.getByText(`reached its budget on ${format.day(today)}`).waitFor()
    const graceLine = table.locator('[data-forecast-agent="Grace"]')
    await graceLine.getByText(format.money(graceRow.month_end_cents), { exact: true }).waitFor()
    await graceLine.getByText(budgetReachedText(format, 200, graceRow.budget_reached_on, thisMonth())).waitFor()
    // The method in one line, in plain words, the API's own description on hover.
    const method = table.locator('[data-forecast-method]')
    expect(await method.textContent()).toMatch(/^Projected at this month's pace: spend so far divided by the share of the month gone/)
    expect(await method.getAttribute('title')).toBe(forecast.method)
    await shot('costs', true)

    await page.getByRole('link', { name: 'Dashboard' }).click()
    const card = page.locator('[data-card="spend"]')
    await card.waitFor()
    // The dashboard seen earlier in this visit shows its figures at once, then the new ones.
    await expect.poll(() => card.locator('[data-month-end]').textContent()).toMatch(new RegExp(`^Month end: ${format.money(forecast.month_end_cents).replace('$', '\\$')}`))
    await card.locator('[data-forecast-agent="Spendy"]').getByText(`reached its budget on ${format.day(today)}`).waitFor()
    expect(await card.locator('[data-forecast-method]').getAttribute('title')).toBe(forecast.method)
  })

  it('shows API spend and the plan equivalent apart on the costs page', async () => {
    // A run on a subscription login: its cost is the list-price equivalent, billed "plan".
    const planned = await client.agents.hire(companyId, { name: 'Planner', title: 'Analyst' })
    await client.agents.wake(companyId, planned.id, { reason: 'Plan the quarter' })
    const run = await claimFor(planned.id)
    await client.runs.report(companyId, run!.id, { runner_id: 'e2e-runner', status: 'succeeded', cost_cents: 37, billing: 'plan' })
    const costs = await client.insights.costs(companyId)
    expect(costs.plan_cents).toBe(37)

    await visit(page, `${server.url}/c/${companyId}/costs`)
    await page.getByRole('region', { name: 'API spend' }).getByText(format.money(costs.total_cents - 37), { exact: true }).waitFor()
    await page.getByRole('region', { name: 'Plan equivalent' }).getByText(format.money(37), { exact: true }).waitFor()
    // The agent on a plan says its cost is a plan equivalent; one on a key says nothing more.
    const byAgent = page.getByRole('region', { name: 'By agent' })
    await byAgent.getByRole('row').filter({ hasText: 'Planner' }).getByText('plan equivalent', { exact: true }).waitFor()
    expect(await byAgent.getByRole('row').filter({ hasText: 'Spendy' }).getByText(/plan equivalent/).count()).toBe(0)
    // The chart has a bar series for each.
    expect(await page.getByRole('region', { name: 'By day' }).getByRole('img').getAttribute('aria-label')).toBe('API spend, Plan equivalent')
    await shot('costs-plan', true)
  })

  it('fits the agent page, the costs page and the spend card on a phone', async () => {
    const phone = await browser.context.newPage()
    await phone.setViewportSize({ width: 390, height: 844 })
    const overflow = () => phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
    for (const [name, path_, ready] of [
      ['agent-phone', `/c/${companyId}/agents/${graceId}`, 'Recent runs'],
      ['costs-phone', `/c/${companyId}/costs`, 'Forecast'],
    ] as const) {
      await visit(phone, `${server.url}${path_}`)
      await phone.getByRole('region', { name: ready }).getByRole('table').waitFor()
      if (name === 'agent-phone') await phone.locator('[data-agent-forecast]').waitFor()
      expect(await overflow(), `${name} is wider than the phone`).toBeLessThanOrEqual(0)
      expect(await narrowTexts(phone), `${name} squeezes text`).toEqual([])
      await screenshot(phone, name, { fullPage: true })
    }
    await visit(phone, `${server.url}/c/${companyId}`)
    await phone.locator('[data-card="spend"] [data-month-end]').waitFor()
    expect(await overflow(), 'the dashboard is wider than the phone').toBeLessThanOrEqual(0)
    await phone.close()
  })
})
