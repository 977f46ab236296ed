// A company with more tasks than one page of its task list (500): the web app finds what it
// needs however old it is. The palette searches the server for a title and looks a key up, a
// task's page lists its subtasks, the board's columns each hold their own status's newest
// tasks, and the org chart and the runs page name the tasks runs work on, though none of them is
// among the newest 500 tasks.
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ShopfloorClient } from '../../src/client/api.ts'
import type { Task } from '../../src/client/types.ts'
import { type Browser, launchBrowser, type RunningServer, screenshot, sharedServer, signIn, visit } from './harness.ts'

const PASSWORD = 'correct horse battery'
/** More than the task list's default page (ListTasksQuery's limit, 500). */
const NEWER_TASKS = 520
/** Runs queued on tasks older than the newest 500, for the runs page. */
const OLD_TASK_RUNS = 8

let server: RunningServer
let browser: Browser
let page: Page
let companyId = ''
let graceId = ''
/** The keys of the old tasks runs were queued on, in the order they were queued. */
let oldKeys: string[] = []

const shot = (name: string) => screenshot(page, name)

describe('a company of more tasks than a page', () => {
  beforeAll(async () => {
    server = await sharedServer()
    const client = new ShopfloorClient({ baseUrl: server.url })
    const email = `large-${Date.now().toString(36)}@example.test`
    await client.auth.register({ name: 'Ada Lovelace', email, password: PASSWORD })
    companyId = (await client.companies.create({ name: 'Airship Works', task_prefix: 'AIR' })).id
    const grace = await client.agents.hire(companyId, { name: 'Grace' })
    // AIR-1 and its subtask AIR-2 first, so that every later task is newer than both.
    const plan = await client.tasks.create(companyId, { title: 'Zeppelin maintenance plan', status: 'todo', assignee_agent_id: grace.id })
    await client.tasks.create(companyId, { title: 'Inspect the gas cells', status: 'backlog', parent_id: plan.id })
    // The first 60 are Grace's too (in backlog: no run queued for them).
    const oldest: Task[] = []
    for (let made = 0; made < NEWER_TASKS; made += 20) {
      const tasks = await Promise.all(Array.from({ length: 20 }, (_, i) =>
        client.tasks.create(companyId, { title: `Paperwork ${made + i + 1}`, status: 'backlog', ...(made < 60 ? { assignee_agent_id: grace.id } : {}) })))
      if (made === 0) oldest.push(...tasks.slice(0, OLD_TASK_RUNS))
    }
    graceId = grace.id
    // Grace's run on AIR-1 starts: the org chart's card names its task.
    await client.runs.claim(companyId, { runner_id: 'large-company-runner' })
    // Runs queued on old tasks, for the runs page.
    for (const task of oldest) await client.agents.wake(companyId, grace.id, { task_id: task.id })
    oldKeys = oldest.map((t) => t.key)
    browser = await launchBrowser()
    page = browser.context.pages()[0] ?? (await browser.context.newPage())
    page.setDefaultTimeout(10_000)
    await signIn(page, server.url, email, PASSWORD, 'Airship Works')
  })

  afterAll(async () => {
    await browser?.close()
  })

  it('finds an old task in the palette by a word of its title and by its key', async () => {
    const palette = page.getByRole('dialog', { name: 'Go to…' })
    await page.keyboard.press('Control+k')
    await palette.getByRole('combobox').waitFor()
    await page.keyboard.type('Zeppelin')
    await palette.getByRole('option', { selected: true, name: /^AIR-1 Zeppelin maintenance plan/ }).waitFor()
    await shot('palette-search')
    await page.keyboard.press('Escape')
    await page.keyboard.press('Control+k')
    await page.keyboard.type('air-2')
    await palette.getByRole('option', { selected: true, name: /^AIR-2 Inspect the gas cells/ }).waitFor()
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: /Inspect the gas cells/ }).waitFor()
  })

  it("lists an old task's subtasks on its page", async () => {
    await visit(page, `${server.url}/c/${companyId}/tasks/AIR-1`)
    await page.getByRole('region', { name: 'Subtasks' }).getByText('Inspect the gas cells').waitFor()
    await shot('subtasks-of-an-old-task')
  })

  it("shows each board column's own newest tasks, and says when a column has more", async () => {
    await visit(page, `${server.url}/c/${companyId}/tasks`)
    await page.getByRole('button', { name: 'Board' }).click()
    const inProgress = page.getByRole('region', { name: 'In progress' })
    await inProgress.getByText('Zeppelin maintenance plan').waitFor()
    expect(await inProgress.getByRole('heading').textContent()).toBe('In progress1')
    expect(await page.getByRole('region', { name: 'Backlog' }).getByRole('heading').textContent()).toBe('Backlog100+')
    await shot('board-of-many-tasks')
    await page.getByRole('button', { name: 'List' }).click()
  })

  it('opens the dashboard, a task and the org chart without fetching a page of the task list', async () => {
    const lists: string[] = []
    const listen = (request: { url(): string }) => {
      const url = new URL(request.url())
      const limit = Number(url.searchParams.get('limit') ?? 500)
      if (url.pathname.endsWith('/tasks') && limit > 20 && !url.searchParams.has('parent_id')) lists.push(url.href)
    }
    page.on('request', listen)
    // Each page loaded afresh, so that nothing comes from an earlier page's cache.
    await page.goto(`${server.url}/c/${companyId}`)
    await page.getByRole('heading', { name: 'Airship Works' }).waitFor()
    await page.getByRole('region', { name: 'Active runs' }).getByRole('link', { name: 'AIR-1', exact: true }).waitFor()
    await page.goto(`${server.url}/c/${companyId}/tasks/AIR-2`)
    await page.getByRole('heading', { name: /Inspect the gas cells/ }).waitFor()
    await page.goto(`${server.url}/c/${companyId}/org`)
    await page.getByText('Working on AIR-1 Zeppelin maintenance plan').waitFor()
    await page.waitForLoadState('load')
    page.off('request', listen)
    expect(lists).toEqual([])
  })

  it("lists a busy agent's first open tasks and links to all of them", async () => {
    await visit(page, `${server.url}/c/${companyId}/agents/${graceId}`)
    const open = page.getByRole('region', { name: 'Open tasks' })
    await open.getByText('The first 50 of 61:').waitFor()
    expect(await open.getByRole('row').count()).toBe(51) // and the header
    await open.scrollIntoViewIfNeeded()
    await shot('agent-busy')
    await open.getByRole('link', { name: 'all on the tasks page' }).click()
    await page.getByRole('link', { name: 'AIR-1', exact: true }).waitFor()
    expect(new URL(page.url()).searchParams.get('assignee_agent_id')).toBe(graceId)
  })

  it('names the tasks of runs on old tasks without a request per task', async () => {
    const taskRequests: string[] = []
    const listen = (request: { url(): string }) => {
      if (/\/tasks(\/|\?|$)/.test(new URL(request.url()).pathname + new URL(request.url()).search)) taskRequests.push(request.url())
    }
    page.on('request', listen)
    await page.goto(`${server.url}/c/${companyId}/runs`)
    const runs = page.getByRole('row', { name: 'Run of Grace' })
    await runs.getByRole('link', { name: oldKeys[0], exact: true }).waitFor()
    // Newest first: the queued runs, then Grace's running run on AIR-1.
    expect(await runs.getByRole('link', { name: /^AIR-\d+$/ }).allTextContents()).toEqual([...oldKeys].reverse().concat('AIR-1'))
    await page.waitForLoadState('load')
    page.off('request', listen)
    expect(taskRequests).toEqual([])
    await shot('runs-of-old-tasks')
  })

  it('names the task a running run works on in the org chart', async () => {
    await visit(page, `${server.url}/c/${companyId}/org`)
    await page.getByText('Working on AIR-1 Zeppelin maintenance plan').waitFor()
    await shot('org-chart-working-on')
  })
})
