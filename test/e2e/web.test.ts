// The web app in a real headless Chromium against a real server process: a person signs up,
// creates a company, hires an agent, creates and moves a task on the board, sees changes made
// by another client arrive live (a task, a run's transcript), and approves a budget override.
// Screenshots of the main pages are saved (see SCREENSHOTS in harness.ts). The server is the test
// worker's shared one (test/shared-server.ts).
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ShopfloorClient } from '../../src/client/api.ts'
import { type Browser, launchBrowser, type RunningServer, screenshot, sharedServer, visit } from './harness.ts'

const PASSWORD = 'correct horse battery'
const email = `ada-${Date.now().toString(36)}@example.test`

let server: RunningServer
let browser: Browser
let page: Page
/** "Another client": the same person signed in from a script, not from this browser. */
let other: ShopfloorClient
let companyId = ''
let graceId = ''

const shot = (name: string, target: Page = page) => screenshot(target, name)

/** Stands in for the identity provider's script: a button that hands over an ID token. */
const FAKE_IDP_SCRIPT = `window.google = { accounts: { id: {
  initialize(options) { window.idpOptions = options },
  renderButton(holder) {
    const button = document.createElement('button')
    button.textContent = 'Continue with the provider'
    button.onclick = () => window.idpOptions.callback({ credential: 'header.payload.signature-of-a-test-token' })
    holder.append(button)
  },
} } }`

/** A run of `agentId` claimed by a pretend runner, as a runner process would. */
async function claimFor(agentId: string) {
  const context = await other.runs.claim(companyId, { runner_id: 'e2e-runner', agent_ids: [agentId] })
  expect(context, 'a queued run to claim').not.toBeNull()
  return context!.run
}

describe('web app in a browser', () => {
  beforeAll(async () => {
    server = await sharedServer()
    browser = await launchBrowser()
    page = browser.context.pages()[0] ?? (await browser.context.newPage())
    page.setDefaultTimeout(10_000)
  })

  afterAll(async () => {
    await browser?.close()
  })

  it('serves the app to browsers and the service description to API clients', async () => {
    const html = await fetch(`${server.url}/`, { headers: { accept: 'text/html' } })
    expect(html.headers.get('content-type')).toContain('text/html')
    const body = await html.text()
    expect(body).toContain('<div id="root">')
    // The page is asked again on every load; the chunks it names, hashed by content, are kept for good.
    expect(html.headers.get('cache-control')).toBe('no-cache')
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(body)![1]
    const asset = await fetch(`${server.url}${script}`)
    expect(asset.status).toBe(200)
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    const json = await fetch(`${server.url}/`, { headers: { accept: 'application/json' } })
    expect((await json.json()).version).toBe('2.1.0')
  })

  it('asks for a reset link, and shows a refused reset link in words', async () => {
    await visit(page, `${server.url}/forgot-password`)
    await page.getByLabel('Email').fill('nobody@example.test')
    await page.getByRole('button', { name: 'Send the link' }).click()
    await page.getByRole('status').filter({ hasText: /.+/ }).waitFor()

    await page.goto(`${server.url}/reset-password?token=${'x'.repeat(43)}`)
    await page.getByLabel('New password').fill('new password 1')
    await page.getByLabel('Repeat it').fill('new password 1')
    await page.getByRole('button', { name: 'Change password' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/invalid|expired|used/i)
  })

  it('signs up and creates a company', async () => {
    await visit(page, server.url)
    await page.getByRole('link', { name: 'Create an account' }).click()
    await page.getByLabel('Name').fill('Ada Lovelace')
    await page.getByLabel('Email').fill(email)
    await page.getByLabel(/Password/).fill(PASSWORD)
    await page.getByRole('button', { name: 'Create account' }).click()

    await page.getByRole('heading', { name: 'New company' }).waitFor()
    await page.getByLabel('Name').fill('Acme Robotics')
    await page.getByLabel(/Mission/).fill('Build friendly robots.')
    expect(await page.getByLabel(/Task prefix/).inputValue()).toBe('ACME') // proposed from the name
    await page.getByLabel(/Task prefix/).fill('acme')
    await page.getByRole('button', { name: 'Create company' }).click()

    // A new company opens on the guided start; the dashboard says what is left of it.
    await page.waitForURL(/\/c\/[0-9a-f-]{36}\/start$/)
    companyId = page.url().split('/c/')[1].split('/')[0]
    await page.getByRole('heading', { name: 'Get Acme Robotics working' }).waitFor()
    await page.getByRole('link', { name: 'Go to the dashboard' }).click()
    await page.getByRole('note', { name: 'Getting started' }).getByText(/hire an agent, connect a runner, give it a task/).waitFor()
    await expect.poll(() => page.locator('[data-live]').getAttribute('data-live')).toBe('live')

    other = new ShopfloorClient({ baseUrl: server.url })
    await other.auth.login(email, PASSWORD)
    const companies = await other.companies.list()
    expect(companies.map((c) => [c.name, c.task_prefix, c.role])).toEqual([['Acme Robotics', 'ACME', 'owner']])
  })

  it('refreshes an expired access token once and carries on', async () => {
    const stored = JSON.parse((await page.evaluate(() => localStorage.getItem('shopfloor.session')))!)
    await page.evaluate((session) => localStorage.setItem('shopfloor.session', JSON.stringify({ ...session, accessToken: 'expired.or.forged' })), stored)
    await page.reload()
    await page.getByRole('heading', { name: 'Acme Robotics' }).waitFor()
    await expect.poll(() => page.locator('[data-live]').getAttribute('data-live')).toBe('live')
    const renewed = JSON.parse((await page.evaluate(() => localStorage.getItem('shopfloor.session')))!)
    expect(renewed.accessToken).not.toBe('expired.or.forged')
    expect(renewed.refreshToken).toBe(stored.refreshToken)
  })

  it('hires an agent, and a second one reporting to the first', async () => {
    await page.getByRole('link', { name: 'Agents' }).first().click()
    await page.getByRole('button', { name: 'Hire agent' }).click()
    const dialog = page.getByRole('dialog', { name: 'Hire an agent' })
    await dialog.getByLabel('Name').fill('Grace')
    await dialog.getByLabel('Title').fill('Chief engineer')
    await dialog.getByLabel('Role').fill('cto')
    await dialog.getByLabel(/Monthly budget/).fill('40')
    // The CLI by its product name, and only the settings that CLI takes.
    await dialog.getByLabel('Works with').selectOption({ label: 'HTTP endpoint' })
    await dialog.getByLabel('URL').waitFor()
    await dialog.getByLabel('Works with').selectOption({ label: 'Claude Code' })
    expect(await dialog.getByLabel('URL').count()).toBe(0)
    await dialog.getByLabel(/Model/).fill('claude-sonnet-4-5')
    await dialog.getByLabel(/Max turns/).fill('30')
    await dialog.getByRole('button', { name: 'Hire', exact: true }).click()

    await page.getByRole('heading', { name: /Grace/ }).waitFor()
    graceId = page.url().split('/agents/')[1]
    const grace = await other.agents.get(companyId, graceId)
    expect(grace).toMatchObject({ name: 'Grace', title: 'Chief engineer', role: 'cto', status: 'idle', monthly_budget_cents: 4000, adapter: 'agent_cli_1', adapter_config: { model: 'claude-sonnet-4-5', max_turns: 30 } })
    await page.getByText('Chief engineer · cto · Claude Code · claude-sonnet-4-5').waitFor()

    // A hire proposed for approval waits as pending until someone approves it.
    await page.getByRole('link', { name: 'Agents' }).first().click()
    await page.getByRole('button', { name: 'Hire agent' }).click()
    await dialog.getByLabel('Name').fill('Hopper')
    await dialog.getByLabel(/Ask for approval first/).check()
    await dialog.getByRole('button', { name: 'Propose hire' }).click()
    await page.getByRole('heading', { name: /Hopper/ }).waitFor()
    await page.getByText('Pending approval').first().waitFor()
    await page.getByRole('link', { name: 'Approvals' }).first().click()
    const hire = page.getByRole('article', { name: 'Hire agent approval' })
    await hire.getByRole('button', { name: 'Approve' }).click()
    await hire.waitFor({ state: 'detached' })
    const hopper = (await other.agents.list(companyId)).find((a) => a.name === 'Hopper')
    expect(hopper?.status).toBe('idle')

    const linus = await other.agents.hire(companyId, { name: 'Linus', title: 'Kernel hacker', reports_to_id: graceId })
    await other.agents.hire(companyId, { name: 'Margaret', title: 'Flight software', reports_to_id: graceId })
    await other.agents.hire(companyId, { name: 'Ken', title: 'Tools', reports_to_id: linus.id })
    await page.getByRole('link', { name: 'Org chart' }).first().click()
    await page.locator('[data-agent-node="Ken"]').waitFor()
    await shot('org-chart')
    await page.getByRole('button', { name: 'List', exact: true }).click()
    const tree = page.getByRole('list', { name: 'Org chart' })
    await tree.getByRole('listitem', { name: 'Ken' }).waitFor()
    // Ken sits under Linus, who sits under Grace.
    await tree.getByRole('listitem', { name: 'Grace' }).getByRole('listitem', { name: 'Linus' }).getByRole('listitem', { name: 'Ken' }).waitFor()
  })

  it('pauses, resumes, wakes, stars and terminates agents from their page', async () => {
    const agents = await other.agents.list(companyId)
    const linus = agents.find((a) => a.name === 'Linus')!
    const ken = agents.find((a) => a.name === 'Ken')!
    await visit(page, `${server.url}/c/${companyId}/agents/${linus.id}`)
    await page.getByRole('button', { name: 'Pause' }).click()
    await page.getByRole('button', { name: 'Resume' }).waitFor()
    expect((await other.agents.get(companyId, linus.id)).status).toBe('paused')
    await page.getByRole('button', { name: 'Resume' }).click()
    await page.getByRole('button', { name: 'Pause' }).waitFor()
    expect((await other.agents.get(companyId, linus.id)).status).toBe('idle')

    await page.getByRole('button', { name: 'Add Linus to favourites' }).click()
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Linus' }).waitFor()

    page.once('dialog', (dialog) => void dialog.accept('Check the nightly build'))
    await page.getByRole('button', { name: 'Wake' }).click()
    await page.waitForURL(/\/runs\//)
    const run = await other.runs.get(companyId, page.url().split('/runs/')[1])
    expect(run).toMatchObject({ agent_id: linus.id, trigger: 'manual', status: 'queued' })

    await visit(page, `${server.url}/c/${companyId}/agents/${ken.id}`)
    page.once('dialog', (dialog) => void dialog.accept())
    await page.getByRole('button', { name: 'Terminate' }).click()
    await page.getByText('Terminated', { exact: true }).waitFor()
    expect((await other.agents.get(companyId, ken.id)).status).toBe('terminated')
  })

  it('creates a task and moves it across the board by drag and drop and by keyboard', async () => {
    await page.getByRole('link', { name: 'Tasks' }).first().click()
    await page.getByRole('button', { name: 'Board' }).click()
    await page.getByRole('button', { name: 'New task' }).click()
    const dialog = page.getByRole('dialog', { name: 'New task' })
    await page.keyboard.press('Escape') // dialogs close from the keyboard
    await dialog.waitFor({ state: 'detached' })
    await page.getByRole('button', { name: 'New task' }).click()
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

  it('edits a task: fields, comments and subtasks', async () => {
    await page.locator('[data-task="ACME-1"]').click()
    await page.getByRole('heading', { name: /Write the launch post/ }).waitFor()
    const fields = page.getByRole('region', { name: 'Fields' })
    await fields.getByLabel('Assignee').selectOption({ label: 'Grace (Chief engineer)' })
    await fields.getByLabel('Due date').fill('2030-01-15')
    await expect.poll(async () => (await other.tasks.get(companyId, 'ACME-1')).due_date?.slice(0, 10)).toBe('2030-01-15')
    expect((await other.tasks.get(companyId, 'ACME-1')).assignee_agent_id).toBe(graceId)

    const comments = page.getByRole('region', { name: 'Timeline' })
    await comments.getByLabel('Add a comment').fill('Keep it under 500 words.')
    await comments.getByLabel('Kind').selectOption('plan')
    await comments.getByRole('button', { name: 'Post' }).click()
    await comments.locator('.comment').filter({ hasText: 'Keep it under 500 words.' }).getByText('Plan').waitFor()
    await expect.poll(() => comments.getByLabel('Add a comment').inputValue()).toBe('') // ready for the next one
    expect(await other.comments.list(companyId, 'ACME-1')).toEqual([expect.objectContaining({ body: 'Keep it under 500 words.', kind: 'plan' })])
    // A comment is edited in place: its text and kind.
    await comments.getByRole('button', { name: 'Edit comment' }).click()
    const editor = comments.getByRole('form', { name: 'Edit comment' })
    await editor.getByLabel('Comment').fill('Keep it under 400 words.')
    await editor.getByLabel('Kind').selectOption('comment')
    await editor.getByRole('button', { name: 'Save' }).click()
    await comments.locator('.comment').filter({ hasText: 'Keep it under 400 words.' }).getByText('(edited)').waitFor()
    expect(await other.comments.list(companyId, 'ACME-1')).toEqual([expect.objectContaining({ body: 'Keep it under 400 words.', kind: 'comment' })])

    await page.getByRole('button', { name: 'Add subtask' }).click()
    const dialog = page.getByRole('dialog', { name: 'New subtask of ACME-1' })
    await dialog.getByLabel('Title').fill('Pick a headline')
    await dialog.getByLabel('Status').selectOption('backlog')
    await dialog.getByRole('button', { name: 'Create task' }).click()
    await page.getByRole('region', { name: 'Subtasks' }).getByText('Pick a headline').waitFor()
    await page.evaluate(() => window.scrollTo(0, 0))
    // started_at is stamped the first time the task starts and kept when it starts again.
    // When it was created, first started and completed, in the fields' side panel.
    for (const term of ['Created', 'First started', 'Completed']) await fields.getByRole('term').filter({ hasText: term }).waitFor()
    await shot('task')
    const [sub] = await other.tasks.list(companyId, { parent_id: (await other.tasks.get(companyId, 'ACME-1')).id })
    expect(sub).toMatchObject({ key: 'ACME-2', title: 'Pick a headline' })
  })

  it('searches the list and keeps a saved view', async () => {
    await page.getByRole('link', { name: 'Tasks' }).first().click()
    await page.getByRole('button', { name: 'List' }).click()
    const search = page.getByLabel('Search')
    await search.fill('headline')
    await search.press('Enter')
    await page.waitForURL(/q=headline/)
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1)
    await page.getByRole('button', { name: 'Save current filters…' }).click()
    await page.getByLabel('View name').fill('Headlines')
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await expect.poll(async () => (await other.me.get()).preferences.tasks?.saved_views).toEqual([expect.objectContaining({ name: 'Headlines', query: 'q=headline' })])

    await page.getByRole('button', { name: 'All', exact: true }).click()
    await expect.poll(() => page.locator('tbody tr').count()).toBe(2)
    await page.getByRole('button', { name: 'Headlines', exact: true }).click()
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1)
    await page.getByRole('button', { name: 'All', exact: true }).click()
    await page.getByRole('button', { name: 'Board' }).click()
  })

  it('shares one token refresh among simultaneous failures, and follows a session change from another tab', async () => {
    const stored = JSON.parse((await page.evaluate(() => localStorage.getItem('shopfloor.session')))!)
    const refreshes: string[] = []
    const failures: string[] = []
    page.on('request', (request) => request.url().endsWith('/api/refresh') && refreshes.push(request.url()))
    page.on('response', (response) => response.status() === 401 && failures.push(response.url()))
    // Another tab stores a session whose access token no longer works; this tab takes it over.
    const tab = await browser.context.newPage()
    await tab.goto(`${server.url}/health`)
    await tab.evaluate((session) => localStorage.setItem('shopfloor.session', JSON.stringify({ ...session, accessToken: 'expired.or.forged' })), stored)
    await tab.close()

    // Opening an agent not seen before fires several requests at once (the agent, its runs, its
    // tasks); all of them fail, and one refresh serves them all.
    const margaret = (await other.agents.list(companyId)).find((a) => a.name === 'Margaret')!
    await page.evaluate((path) => {
      window.history.pushState(null, '', path)
      window.dispatchEvent(new PopStateEvent('popstate'))
    }, `/c/${companyId}/agents/${margaret.id}`)
    await page.getByRole('heading', { name: /Margaret/ }).waitFor()
    await page.getByRole('region', { name: 'Recent runs' }).getByText('No runs.').waitFor()
    expect(failures.length).toBeGreaterThanOrEqual(3)
    await expect.poll(async () => JSON.parse((await page.evaluate(() => localStorage.getItem('shopfloor.session')))!).accessToken).not.toBe('expired.or.forged')
    expect(refreshes).toHaveLength(1)
    await page.getByRole('link', { name: 'Tasks' }).first().click()
  })

  it('shows a task created by another client without reloading', async () => {
    const made = await other.tasks.create(companyId, { title: 'Made elsewhere', status: 'todo', assignee_agent_id: graceId, priority: 'urgent' })
    await page.locator(`[data-column="todo"] [data-task="${made.key}"]`).waitFor()
    await shot('board')
  })

  it('grows a run transcript live while the run is running', async () => {
    const run = await claimFor(graceId)
    await visit(page, `${server.url}/c/${companyId}/runs/${run.id}`)
    await page.getByRole('heading', { name: /Run/ }).waitFor()
    await other.runs.report(companyId, run.id, { runner_id: 'e2e-runner', status: 'running', transcript: [{ role: 'system', text: 'Picked up by e2e-runner.' }, { text: 'Reading the repository layout.' }] })
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
    await shot('approvals')
    await card.getByRole('button', { name: 'Approve' }).click()
    await page.getByRole('article', { name: 'Budget override approval' }).waitFor({ state: 'detached' })

    const after = await other.agents.get(companyId, spendy.id)
    expect(after).toMatchObject({ status: 'idle', monthly_budget_cents: 500 })
    const [approval] = await other.approvals.list(companyId, { status: 'approved' })
    expect(approval).toMatchObject({ type: 'budget_override', decision_note: 'Worth it', new_budget_cents: 500 })
  })

  it('rejects a proposed hire with a note', async () => {
    const proposed = await other.agents.hire(companyId, { name: 'Mallory', request_approval: true })
    await page.getByRole('link', { name: 'Approvals' }).first().click()
    const card = page.locator('article').filter({ hasText: 'Mallory' })
    await card.getByLabel(/Note/).fill('Not this quarter')
    await card.getByRole('button', { name: 'Reject' }).click()
    await card.waitFor({ state: 'detached' })
    expect((await other.agents.get(companyId, proposed.id)).status).toBe('terminated')
    await page.getByRole('button', { name: 'Rejected' }).click()
    await page.getByText(/Not this quarter/).waitFor()
  })

  it('shows when the live stream is down, reconnects, and refetches what it missed', async () => {
    await visit(page, `${server.url}/c/${companyId}/tasks`)
    await expect.poll(() => page.locator('[data-live]').getAttribute('data-live')).toBe('live')
    // Cut the stream: the open connection is dropped and every new one refused.
    await page.route('**/api/companies/*/events', (route) => route.abort())
    await page.reload()
    await page.locator('[data-task="ACME-1"]').waitFor()
    await expect.poll(() => page.locator('[data-live]').getAttribute('data-live')).toBe('down')
    await page.getByText('Live updates down, reconnecting').waitFor()

    const missed = await other.tasks.create(companyId, { title: 'Made while offline', status: 'blocked' })
    await page.unroute('**/api/companies/*/events')
    await expect.poll(() => page.locator('[data-live]').getAttribute('data-live'), { timeout: 15_000 }).toBe('live')
    await page.locator(`[data-column="blocked"] [data-task="${missed.key}"]`).waitFor()
  })

  it('pages through the activity log with field-level changes', async () => {
    const scratch = await other.tasks.create(companyId, { title: 'Churn', status: 'backlog' })
    for (let i = 1; i <= 50; i++) await other.tasks.update(companyId, scratch.id, { sort_order: i })
    await page.getByRole('link', { name: 'Activity' }).click()
    await page.getByRole('listitem').filter({ hasText: 'Sort order' }).first().waitFor()
    const rows = page.locator('tbody tr')
    await expect.poll(() => rows.count()).toBe(50)
    await page.getByRole('button', { name: 'Load older' }).click()
    await expect.poll(() => rows.count()).toBeGreaterThan(50)
    // The oldest entries include the company's creation by its owner.
    await page.getByRole('cell', { name: /Created company Acme Robotics/i }).waitFor()
    await page.evaluate(() => window.scrollTo(0, 0))
    await shot('activity')
  })

  it('runs the goals, projects, routines and costs pages', async () => {
    const goal = await other.goals.create(companyId, { title: 'Launch v1' })
    await other.goals.create(companyId, { title: 'Ship the docs', parent_id: goal.id })
    await page.getByRole('link', { name: 'Goals' }).click()
    await page.locator('.tree li li').getByText('Ship the docs').waitFor()
    // Every field of a goal can be edited, not only its status.
    await page.locator('.tree li li').getByRole('button', { name: 'Edit' }).click()
    const goalEdit = page.getByRole('dialog', { name: 'Edit goal' })
    await goalEdit.getByLabel('Title').fill('Ship the user guide')
    await goalEdit.getByLabel('Target date').fill('2031-03-01')
    await goalEdit.getByLabel('Part of').selectOption({ label: '— none —' })
    await goalEdit.getByRole('button', { name: 'Save' }).click()
    await page.locator('.tree > ul > li').getByText('Ship the user guide').waitFor()
    expect((await other.goals.list(companyId)).find((g) => g.title === 'Ship the user guide'))
      .toMatchObject({ parent_id: null, target_date: '2031-03-01T12:00:00.000000+00:00' })

    await page.getByRole('link', { name: 'Projects' }).click()
    await page.getByRole('button', { name: 'New project' }).click()
    const project = page.getByRole('dialog', { name: 'New project' })
    await project.getByLabel('Name').fill('Website')
    await project.getByRole('button', { name: 'Create project' }).click()
    await page.getByRole('link', { name: 'Website' }).waitFor()
    await page.getByRole('row', { name: /Website/ }).getByRole('button', { name: 'Edit' }).click()
    const projectEdit = page.getByRole('dialog', { name: 'Edit project' })
    await projectEdit.getByLabel('Git repository').fill('https://example.test/site.git')
    await projectEdit.getByLabel('Monthly budget').fill('12.50')
    await projectEdit.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('cell', { name: 'https://example.test/site.git' }).waitFor()
    expect((await other.projects.list(companyId)).find((p) => p.name === 'Website'))
      .toMatchObject({ repository: 'https://example.test/site.git', monthly_budget_cents: 1250 })

    await page.getByRole('link', { name: 'Routines' }).click()
    await page.getByRole('button', { name: 'New routine' }).click()
    const routine = page.getByRole('dialog', { name: 'New routine' })
    await routine.getByLabel('Title').fill('Morning triage')
    await routine.getByLabel('Agent').selectOption({ label: 'Grace (Chief engineer)' })
    await routine.getByRole('button', { name: 'Create routine' }).click()
    await page.getByRole('cell', { name: 'Morning triage', exact: true }).waitFor()
    await page.getByRole('row', { name: /Morning triage/ }).getByRole('button', { name: 'Edit' }).click()
    const routineEdit = page.getByRole('dialog', { name: 'Edit routine' })
    expect(await routineEdit.getByLabel('Title').inputValue()).toBe('Morning triage')
    // A schedule the scheduler cannot read is said so at once, and not saved.
    await routineEdit.getByLabel('Schedule (cron)').fill('61 8 * * 1-5')
    await routineEdit.getByRole('status').getByText(/^Not a valid schedule: /).waitFor()
    await routineEdit.getByRole('button', { name: 'Save' }).click()
    await routineEdit.getByText(/^Schedule: not a cron expression the scheduler can read/).waitFor()
    // One that never fires (the 31st of February) likewise.
    await routineEdit.getByLabel('Schedule (cron)').fill('0 0 31 2 *')
    await routineEdit.getByRole('status').getByText('Never fires').waitFor()
    await routineEdit.getByRole('button', { name: 'Save' }).click()
    await routineEdit.getByText('Schedule: it never fires (no such date comes again).').waitFor()
    await routineEdit.getByLabel('Schedule (cron)').fill('30 8 * * 1-5')
    await routineEdit.getByRole('status').getByText(/^Fires next .+ \(.+\)$/).waitFor()
    await routineEdit.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('cell', { name: 'At 08:30, Monday through Friday' }).waitFor() // the schedule in words
    expect((await other.routines.list(companyId)).find((r) => r.title === 'Morning triage')?.cron).toBe('30 8 * * 1-5')
    // When it fires next, in words; an invalid schedule stored through the API is pointed out.
    await page.getByRole('row', { name: /Morning triage/ }).getByText(/^in \d+ (hours?|days?|minutes?)$|^tomorrow$/).waitFor()
    const odd = await other.routines.create(companyId, { title: 'Odd schedule', agent_id: graceId, cron: 'every morning' })
    await page.getByRole('row', { name: /Odd schedule/ }).getByText('not a valid schedule').waitFor()
    await other.routines.delete(companyId, odd.id)
    await page.getByRole('row', { name: /Odd schedule/ }).waitFor({ state: 'detached' })
    await page.getByRole('button', { name: 'Run now' }).click()
    await page.waitForURL(/\/runs\//)
    const run = await other.runs.get(companyId, page.url().split('/runs/')[1])
    expect(run).toMatchObject({ trigger: 'routine', agent_id: graceId })

    await page.getByRole('link', { name: 'Costs' }).click()
    await page.getByRole('region', { name: 'By agent' }).getByRole('link', { name: 'Grace' }).waitFor()

    await page.getByRole('link', { name: /Inbox/ }).click()
    await page.getByRole('region', { name: 'Tasks to look at' }).getByText('Write the launch post').waitFor()

    await page.getByRole('link', { name: 'Settings' }).click()
    await page.getByLabel(/Monthly budget/).fill('250')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByText('Saved.').waitFor()
    expect((await other.companies.get(companyId)).monthly_budget_cents).toBe(25_000)

    // The switcher creates and opens companies.
    await page.getByLabel('Company', { exact: true }).selectOption({ label: '+ New company…' })
    await page.getByRole('heading', { name: 'New company' }).waitFor()
    await page.getByLabel('Name').fill('Beta Labs')
    await page.getByRole('button', { name: 'Create company' }).click()
    await page.getByRole('heading', { name: 'Beta Labs' }).waitFor()
    await page.getByLabel('Company', { exact: true }).selectOption({ label: 'Acme Robotics' })
    await page.getByRole('heading', { name: 'Acme Robotics' }).waitFor()
  })

  it('shows the agent page and the dashboard', async () => {
    await visit(page, `${server.url}/c/${companyId}/agents/${graceId}`)
    await page.getByRole('region', { name: 'Budget' }).getByText(/of \$40\.00/).waitFor()
    await page.getByRole('region', { name: 'Recent runs' }).getByRole('cell', { name: 'Succeeded' }).waitFor()
    await page.getByRole('region', { name: 'Open tasks' }).getByText('Made elsewhere').waitFor()

    await page.getByRole('link', { name: 'Dashboard' }).click()
    await page.locator('[data-card="spend"]').waitFor()
    await page.locator('[data-card="activity-chart"] svg').waitFor()
    await shot('dashboard')

    await page.getByLabel('Range').selectOption('7')
    await expect.poll(() => page.locator('[data-card="activity-chart"] .axis span').count()).toBe(7)
    await page.getByRole('button', { name: 'Customise' }).click()
    await page.getByRole('button', { name: 'Hide Blocked tasks' }).click()
    await page.locator('[data-card="tasks-blocked"]').waitFor({ state: 'detached' })
    await page.getByRole('button', { name: 'Move Spend this month earlier' }).click()
    await expect.poll(() => page.locator('[data-card]').evaluateAll((cards) => cards.slice(2, 4).map((c) => c.getAttribute('data-card')))).toEqual(['spend', 'pending-approvals'])
    // Each change is saved by a request of its own; the move's may still be on its way.
    await expect.poll(async () => {
      const { range_days, hidden, order } = (await other.me.get()).preferences.dashboard ?? {}
      return { range_days, hidden, order: order?.slice(0, 5) }
    }).toEqual({ range_days: 7, hidden: ['tasks-blocked'], order: ['agents', 'tasks-in-progress', 'tasks-blocked', 'spend', 'pending-approvals'] })
    await page.getByRole('button', { name: 'Show Blocked tasks' }).click()
    await page.locator('[data-card="tasks-blocked"]').waitFor()
  })

  it('applies preferences: dark theme and compact density', async () => {
    await visit(page, `${server.url}/profile`)
    await page.getByLabel('Theme').selectOption('dark')
    await page.getByLabel('Density').selectOption('compact')
    await expect.poll(() => page.evaluate(() => [document.documentElement.dataset.theme, document.documentElement.dataset.density])).toEqual(['dark', 'compact'])
    await expect.poll(async () => (await other.me.get()).preferences).toMatchObject({ theme: 'dark', density: 'compact' })
    await visit(page, `${server.url}/c/${companyId}/tasks`)
    await page.locator('[data-task="ACME-1"]').waitFor()
    await shot('board-dark')

    await page.getByRole('button', { name: 'Collapse sidebar' }).click()
    await page.locator('.shell.collapsed').waitFor()
    await expect.poll(async () => (await other.me.get()).preferences.sidebar_collapsed).toBe(true)
    await page.getByRole('button', { name: 'Expand sidebar' }).click()
    await page.locator('.shell:not(.collapsed)').waitFor()

    await visit(page, `${server.url}/profile`)
    await page.getByLabel(/Locale/).fill('de-DE')
    await page.getByLabel(/Currency/).fill('eur')
    await page.getByLabel(/Timezone/).focus() // leaving a field saves it
    await expect.poll(async () => (await other.me.get()).preferences).toMatchObject({ locale: 'de-DE', currency: 'EUR' })
    await visit(page, `${server.url}/c/${companyId}/costs`)
    await page.getByRole('region', { name: 'By agent' }).getByText(/^0,12\s€$/).waitFor()
    await other.me.updatePreferences({ locale: null, currency: null })
  })

  it('is usable at phone width', async () => {
    const phone = await browser.context.newPage()
    await phone.setViewportSize({ width: 390, height: 844 })
    await visit(phone, `${server.url}/c/${companyId}`)
    await phone.locator('[data-card="spend"]').waitFor()
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await phone.getByRole('button', { name: 'Open menu' }).click()
    const drawer = phone.getByRole('navigation', { name: 'Main' })
    await drawer.getByRole('button', { name: 'Sign out' }).waitFor() // in the drawer at this width
    await drawer.getByRole('link', { name: 'Agents' }).click()
    await phone.getByRole('heading', { name: 'Agents' }).waitFor()
    await phone.waitForFunction(() => document.getAnimations().length === 0) // the drawer has slid shut
    await shot('phone-agents', phone)
    await phone.close()
  })

  it('creates an API key shown once, signs out, and signs in again', async () => {
    await visit(page, `${server.url}/profile`)
    const keys = page.getByRole('region', { name: 'API keys' })
    await keys.getByLabel('Name').fill('laptop runner')
    await keys.getByRole('button', { name: 'Create key' }).click()
    const secret = await keys.getByLabel('New API key').inputValue()
    expect(secret).toMatch(/^svc_live_[A-Za-z0-9_-]{32}$/)
    const viaKey = new ShopfloorClient({ baseUrl: server.url, credentials: { apiKey: secret } })
    expect((await viaKey.me.get()).email).toBe(email)
    await keys.getByLabel('Name').fill('laptop runner')
    await keys.getByRole('button', { name: 'Create key' }).click()
    await keys.getByRole('alert').filter({ hasText: /laptop runner|already/i }).waitFor() // the server's refusal, in words

    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { name: 'Sign in' }).waitFor()
    expect(await page.evaluate(() => localStorage.getItem('shopfloor.session'))).toBeNull()

    // With an identity provider configured its button shows, and a refused credential is explained.
    await page.route('**/api/auth/config', (route) => route.fulfill({ json: { idp_client_id: 'e2e-client' } }))
    await page.route('https://accounts.google.com/**', (route) => route.fulfill({ contentType: 'text/javascript', body: FAKE_IDP_SCRIPT }))
    await page.reload()
    await page.getByRole('button', { name: 'Continue with the provider' }).click()
    await page.getByRole('alert').waitFor()
    await page.unroute('**/api/auth/config')

    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password').fill('wrong password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('alert').filter({ hasText: /password/i }).waitFor()
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL(`${server.url}/c/${companyId}`)
  })
})
