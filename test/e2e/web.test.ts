// The web app in a real headless Chromium against a real server process: a person signs up,
// creates a company, hires an agent, creates and moves a task on the board, sees changes made
// by another client arrive live (a task, a run's transcript), and approves a budget override.
// Screenshots of the main pages are saved to docs/screenshots/.
import fs from 'node:fs'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ShopfloorClient } from '../../src/client/api.ts'
import { type Browser, buildWebApp, launchBrowser, type RunningServer, SCREENSHOTS, startServer } from './harness.ts'

const PASSWORD = 'correct horse battery'
const email = `ada-${Date.now().toString(36)}@example.test`

let server: RunningServer
let browser: Browser
let page: Page
/** "Another client": the same person signed in from a script, not from this browser. */
let other: ShopfloorClient
let companyId = ''
let graceId = ''

async function shot(name: string, target: Page = page) {
  fs.mkdirSync(SCREENSHOTS, { recursive: true })
  await target.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) })
}

/** A run of `agentId` claimed by a pretend runner, as a runner process would. */
async function claimFor(agentId: string) {
  const context = await other.runs.claim(companyId, { runner_id: 'e2e-runner', agent_ids: [agentId] })
  expect(context, 'a queued run to claim').not.toBeNull()
  return context!.run
}

describe('web app in a browser', () => {
  beforeAll(async () => {
    buildWebApp()
    server = await startServer()
    browser = await launchBrowser()
    page = browser.context.pages()[0] ?? (await browser.context.newPage())
    page.setDefaultTimeout(10_000)
  })

  afterAll(async () => {
    await browser?.close()
    await server?.stop()
  })

  it('serves the app to browsers and the service description to API clients', async () => {
    const html = await fetch(`${server.url}/`, { headers: { accept: 'text/html' } })
    expect(html.headers.get('content-type')).toContain('text/html')
    expect(await html.text()).toContain('<div id="root">')
    const json = await fetch(`${server.url}/`, { headers: { accept: 'application/json' } })
    expect((await json.json()).version).toBe('2.1.0')
  })

  it('shows a refused reset link in words', async () => {
    await page.goto(`${server.url}/reset-password?token=${'x'.repeat(43)}`)
    await page.getByLabel('New password').fill('new password 1')
    await page.getByLabel('Repeat it').fill('new password 1')
    await page.getByRole('button', { name: 'Change password' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/invalid|expired|used/i)
  })

  it('signs up and creates a company', async () => {
    await page.goto(server.url)
    await page.getByRole('link', { name: 'Create an account' }).click()
    await page.getByLabel('Name').fill('Ada Lovelace')
    await page.getByLabel('Email').fill(email)
    await page.getByLabel(/Password/).fill(PASSWORD)
    await page.getByRole('button', { name: 'Create account' }).click()

    await page.getByRole('heading', { name: 'New company' }).waitFor()
    await page.getByLabel('Name').fill('Acme Robotics')
    await page.getByLabel(/Mission/).fill('Build friendly robots.')
    await page.getByLabel(/Task prefix/).fill('acme')
    await page.getByRole('button', { name: 'Create company' }).click()

    await page.waitForURL(/\/c\/[0-9a-f-]{36}$/)
    companyId = page.url().split('/c/')[1]
    await page.getByRole('heading', { name: 'Acme Robotics' }).waitFor()
    await expect.poll(() => page.locator('[data-live]').getAttribute('data-live')).toBe('live')

    other = new ShopfloorClient({ baseUrl: server.url })
    await other.auth.login(email, PASSWORD)
    const companies = await other.companies.list()
    expect(companies.map((c) => [c.name, c.task_prefix, c.role])).toEqual([['Acme Robotics', 'ACME', 'owner']])
  })

  it('hires an agent, and a second one reporting to the first', async () => {
    await page.getByRole('link', { name: 'Agents' }).first().click()
    await page.getByRole('button', { name: 'Hire agent' }).click()
    const dialog = page.getByRole('dialog', { name: 'Hire an agent' })
    await dialog.getByLabel('Name').fill('Grace')
    await dialog.getByLabel('Title').fill('Chief engineer')
    await dialog.getByLabel('Role').fill('cto')
    await dialog.getByLabel(/Monthly budget/).fill('40')
    await dialog.getByRole('button', { name: 'Hire', exact: true }).click()

    await page.getByRole('heading', { name: /Grace/ }).waitFor()
    graceId = page.url().split('/agents/')[1]
    const grace = await other.agents.get(companyId, graceId)
    expect(grace).toMatchObject({ name: 'Grace', title: 'Chief engineer', role: 'cto', status: 'idle', monthly_budget_cents: 4000 })

    const linus = await other.agents.hire(companyId, { name: 'Linus', title: 'Kernel hacker', reports_to_id: graceId })
    await other.agents.hire(companyId, { name: 'Margaret', title: 'Flight software', reports_to_id: graceId })
    await other.agents.hire(companyId, { name: 'Ken', title: 'Tools', reports_to_id: linus.id })
    await page.getByRole('link', { name: 'Org chart' }).first().click()
    const tree = page.getByRole('tree', { name: 'Org chart' })
    await tree.getByRole('treeitem', { name: 'Ken' }).waitFor()
    // Ken sits under Linus, who sits under Grace.
    await tree.getByRole('treeitem', { name: 'Grace' }).getByRole('treeitem', { name: 'Linus' }).getByRole('treeitem', { name: 'Ken' }).waitFor()
    await shot('org-chart')
  })

  it('creates a task and moves it across the board by drag and drop and by keyboard', async () => {
    await page.getByRole('link', { name: 'Tasks' }).first().click()
    await page.getByRole('button', { name: 'Board' }).click()
    await page.getByRole('button', { name: 'New task' }).click()
    const dialog = page.getByRole('dialog', { name: 'New task' })
    await dialog.getByLabel('Title').fill('Write the launch post')
    await dialog.getByLabel('Status').selectOption('backlog')
    await dialog.getByLabel('Priority').selectOption('high')
    await dialog.getByRole('button', { name: 'Create task' }).click()

    const card = page.locator('[data-column="backlog"] [data-task="ACME-1"]')
    await card.waitFor()
    await card.dragTo(page.locator('[data-column="in_progress"]'))
    await page.locator('[data-column="in_progress"] [data-task="ACME-1"]').waitFor()
    await expect.poll(async () => (await other.tasks.get(companyId, 'ACME-1')).status).toBe('in_progress')

    await page.locator('[data-task="ACME-1"]').focus()
    await page.keyboard.press('Shift+ArrowRight')
    await page.locator('[data-column="in_review"] [data-task="ACME-1"]').waitFor()
    await expect.poll(async () => (await other.tasks.get(companyId, 'ACME-1')).status).toBe('in_review')
    const me = await other.me.get()
    expect(me.preferences.tasks?.view).toBe('board')
  })

  it('shows a task created by another client without reloading', async () => {
    const made = await other.tasks.create(companyId, { title: 'Made elsewhere', status: 'todo', assignee_agent_id: graceId, priority: 'urgent' })
    await page.locator(`[data-column="todo"] [data-task="${made.key}"]`).waitFor()
    await shot('board')
  })

  it('grows a run transcript live while the run is running', async () => {
    const run = await claimFor(graceId)
    await page.goto(`${server.url}/c/${companyId}/runs/${run.id}`)
    await page.getByRole('heading', { name: /Run/ }).waitFor()
    await other.runs.report(companyId, run.id, { runner_id: 'e2e-runner', status: 'running', transcript: [{ role: 'system', text: 'Task ACME-2: Made elsewhere' }, { text: 'Reading the repository layout.' }] })
    await page.getByText('Reading the repository layout.').waitFor()
    await other.runs.report(companyId, run.id, {
      runner_id: 'e2e-runner',
      tokens_in: 1200,
      tokens_out: 340,
      cost_cents: 12,
      transcript: [{ role: 'tool', text: '$ ls src\napp.ts  main.ts  routes/' }, { text: 'Drafting the post now.' }],
    })
    await page.getByText('Drafting the post now.').waitFor()
    await shot('run')
    await other.runs.report(companyId, run.id, { runner_id: 'e2e-runner', status: 'succeeded', summary: 'Drafted the launch post.' })
    await page.getByText('Drafted the launch post.').waitFor()
  })

  it('approves a budget override with a new budget', async () => {
    const spendy = await other.agents.hire(companyId, { name: 'Spendy', title: 'Researcher', role: 'researcher', monthly_budget_cents: 100 })
    await other.agents.wake(companyId, spendy.id, { reason: 'Survey the market' })
    const run = await claimFor(spendy.id)
    await other.runs.report(companyId, run.id, { runner_id: 'e2e-runner', status: 'succeeded', cost_cents: 150 })
    expect((await other.agents.get(companyId, spendy.id)).status).toBe('paused')

    await page.getByRole('link', { name: 'Approvals' }).first().click()
    const card = page.getByRole('article', { name: 'Budget override approval' })
    await card.waitFor()
    await card.getByLabel(/New monthly budget/).fill('5')
    await card.getByLabel(/Note/).fill('Worth it')
    await card.getByRole('button', { name: 'Approve' }).click()
    await page.getByRole('article', { name: 'Budget override approval' }).waitFor({ state: 'detached' })

    const after = await other.agents.get(companyId, spendy.id)
    expect(after).toMatchObject({ status: 'idle', monthly_budget_cents: 500 })
    const [approval] = await other.approvals.list(companyId, { status: 'approved' })
    expect(approval).toMatchObject({ type: 'budget_override', decision_note: 'Worth it', new_budget_cents: 500 })
  })

  it('shows the agent page and the dashboard', async () => {
    await page.goto(`${server.url}/c/${companyId}/agents/${graceId}`)
    await page.getByRole('region', { name: 'Budget' }).getByText(/of \$40\.00/).waitFor()
    await page.getByRole('region', { name: 'Recent runs' }).getByRole('cell', { name: 'Succeeded' }).waitFor()
    await page.getByRole('region', { name: 'Open tasks' }).getByText('Made elsewhere').waitFor()
    await shot('agent')

    await page.getByRole('link', { name: 'Dashboard' }).click()
    await page.locator('[data-card="spend"]').waitFor()
    await page.locator('[data-card="activity-chart"] svg').waitFor()
    await shot('dashboard')
  })

  it('applies preferences: dark theme and compact density', async () => {
    await page.goto(`${server.url}/profile`)
    await page.getByLabel('Theme').selectOption('dark')
    await page.getByLabel('Density').selectOption('compact')
    await expect.poll(() => page.evaluate(() => [document.documentElement.dataset.theme, document.documentElement.dataset.density])).toEqual(['dark', 'compact'])
    await expect.poll(async () => (await other.me.get()).preferences).toMatchObject({ theme: 'dark', density: 'compact' })
    await page.goto(`${server.url}/c/${companyId}/tasks`)
    await page.locator('[data-task="ACME-1"]').waitFor()
    await shot('board-dark')
  })

  it('creates an API key shown once, and signs out', async () => {
    await page.goto(`${server.url}/profile`)
    const keys = page.getByRole('region', { name: 'API keys' })
    await keys.getByLabel('Name').fill('laptop runner')
    await keys.getByRole('button', { name: 'Create key' }).click()
    const secret = await keys.getByLabel('New API key').inputValue()
    expect(secret).toMatch(/^svc_live_[A-Za-z0-9_-]{32}$/)
    const viaKey = new ShopfloorClient({ baseUrl: server.url, credentials: { apiKey: secret } })
    expect((await viaKey.me.get()).email).toBe(email)

    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { name: 'Sign in' }).waitFor()
    expect(await page.evaluate(() => localStorage.getItem('shopfloor.session'))).toBeNull()
  })
})
