// Honest state in plain names: the activity page says an agent's name where the audit event holds
// its id, the runs list names each run's task by its key and the runner that ran it, a task whose
// run failed says so at the top of its page, and a task or run that is not there says so in a
// sentence with the way back. A real server process and a real headless Chromium.
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ShopfloorClient } from '../../src/client/api.ts'
import { type Browser, launchBrowser, narrowTexts, type RunningServer, screenshot, sharedServer, signIn, visit } from './harness.ts'

const PASSWORD = 'correct horse battery'
const UUID_TEXT = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i

let server: RunningServer
let browser: Browser
let page: Page
let client: ShopfloorClient
let companyId = ''
let grace: { id: string; name: string }
let task: { id: string; key: string }

describe('names, not ids, and plain words for what went wrong', () => {
  beforeAll(async () => {
    server = await sharedServer()
    client = new ShopfloorClient({ baseUrl: server.url })
    const email = `names-${Date.now().toString(36)}@example.test`
    await client.auth.register({ name: 'Ada Lovelace', email, password: PASSWORD })
    companyId = (await client.companies.create({ name: 'Acme Robotics', task_prefix: 'ACME' })).id
    grace = await client.agents.hire(companyId, { name: 'Grace', title: 'Writer' })
    const project = await client.projects.create(companyId, { name: 'Launch' })
    task = await client.tasks.create(companyId, { title: 'Write the launch post', status: 'todo' })
    // Assigning queues Grace's run: the audit event holds her id, and the project's.
    await client.tasks.update(companyId, task.id, { assignee_agent_id: grace.id, project_id: project.id })
    // A runner called laptop-7 takes the run, which starts the task, and the run fails.
    const claimed = await client.runs.claim(companyId, { runner_id: 'laptop-7', agent_ids: [grace.id] })
    expect(claimed?.run.task_id).toBe(task.id)
    await client.runs.report(companyId, claimed!.run.id, { runner_id: 'laptop-7', status: 'failed', error: 'The agent CLI exited with code 2.' })

    browser = await launchBrowser()
    page = browser.context.pages()[0] ?? (await browser.context.newPage())
    page.setDefaultTimeout(15_000)
    await signIn(page, server.url, email, PASSWORD, 'Acme Robotics')
  })

  afterAll(async () => {
    await browser?.close()
  })

  it('names the assignee and the project in the activity, with no id on the page', async () => {
    const events = await client.insights.activity(companyId, { entity_type: 'task', entity_id: task.id })
    const assigned = events.find((e) => 'assignee_agent_id' in e.changes)!
    expect(assigned.changes.assignee_agent_id[1]).toBe(grace.id) // the raw event holds the id

    await visit(page, `${server.url}/c/${companyId}/activity`)
    const row = page.locator(`tr[data-event="${assigned.id}"]`)
    await row.getByText('Assignee:').waitFor()
    // Each name shows once its record has arrived ("…" until then), not all at the same moment.
    await expect.poll(() => row.textContent()).toContain('Project: none → Launch')
    const said = await row.textContent()
    expect(said).toContain('Assignee: none → Grace')
    expect(said).toContain(`${task.key} Write the launch post`)
    await expect.poll(async () => (await page.locator('main').textContent())?.match(UUID_TEXT)?.[0] ?? null).toBeNull()
    await screenshot(page, 'activity-names')
  })

  it('credits the run\'s start, its end and the moves of its task to the agent, in the activity and on the task, not the key\'s owner', async () => {
    const [run] = await client.runs.list(companyId, { task_id: task.id })
    const events = await client.insights.activity(companyId, { entity_type: 'run', entity_id: run!.id })
    const started = events.find((e) => e.verb === 'started')!
    const failed = events.find((e) => e.verb === 'failed')!
    // The audit model: the service acting for the agent, named after it (SPEC.md), though the runner used Ada's key.
    expect([started.actor_type, started.actor_name, failed.actor_type, failed.actor_name]).toEqual(['system', 'Grace', 'system', 'Grace'])

    await visit(page, `${server.url}/c/${companyId}/activity`)
    for (const event of [started, failed]) {
      const who = page.locator(`tr[data-event="${event.id}"] td`).nth(1)
      await expect.poll(() => who.textContent()).toBe('Graceagent, via Shopfloor')
    }
    // No row of the run credits the person or a faceless "Shopfloor".
    const runRows = page.locator('tbody tr').filter({ hasText: 'run' })
    expect(await runRows.locator('td:nth-child(2)').allTextContents()).not.toContain('Shopfloorthe service')
    await screenshot(page, 'activity-run-credit')

    // The task's own timeline names the same one for the claim's move and the move back.
    await visit(page, `${server.url}/c/${companyId}/tasks/${task.key}`)
    const timeline = page.getByRole('region', { name: 'Timeline' })
    await timeline.getByRole('listitem', { name: 'Grace moved it from Todo to In progress' }).waitFor()
    await timeline.getByRole('listitem', { name: 'Grace moved it from In progress to Todo' }).waitFor()

    const phone = await browser.context.newPage()
    await phone.setViewportSize({ width: 390, height: 844 })
    await visit(phone, `${server.url}/c/${companyId}/activity`)
    await expect.poll(() => phone.locator(`tr[data-event="${started.id}"] td`).nth(1).textContent()).toBe('Graceagent, via Shopfloor')
    expect(await narrowTexts(phone)).toEqual([])
    expect(await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0)
    await screenshot(phone, 'activity-run-credit-phone')
    await phone.close()
  })

  it('lists runs with the task key, the runner and the agent', async () => {
    await visit(page, `${server.url}/c/${companyId}/runs`)
    const row = page.getByRole('row', { name: 'Run of Grace' })
    await row.getByRole('link', { name: task.key }).waitFor()
    expect(await row.textContent()).toContain('runner laptop-7')
    await row.getByText('Failed').waitFor()
    expect((await page.locator('main').textContent())?.match(UUID_TEXT)).toBeNull()
    await screenshot(page, 'runs')
    await row.getByRole('link', { name: task.key }).click()
    await page.waitForURL(new RegExp(`/tasks/${task.key}$`))
  })

  it('says on the task page that its run failed, with the error and where the task stands', async () => {
    await visit(page, `${server.url}/c/${companyId}/tasks/${task.key}`)
    const note = page.getByRole('note', { name: 'Last run' })
    await note.getByText("Grace's last run failed").waitFor()
    const status = (await client.tasks.get(companyId, task.id)).status
    expect(status).toBe('todo') // back where it was before the claim
    expect(await note.textContent()).toContain(': The agent CLI exited with code 2. The task is now Todo.')
    const run = page.getByRole('region', { name: 'Timeline' }).getByRole('listitem', { name: 'Run of Grace' })
    await run.getByText('Failed: The agent CLI exited with code 2.').waitFor()
    await run.getByText('on runner laptop-7').waitFor()
    await screenshot(page, 'task-failed-run')
  })

  it('calls no agent gone while the list of agents is on its way', async () => {
    let release = () => {}
    const held = new Promise<void>((resolve) => { release = resolve })
    const agentsList = new RegExp(`/api/companies/${companyId}/agents(\\?|$)`)
    await page.route(agentsList, async (request) => { await held; await request.fallback() })
    await page.goto(`${server.url}/c/${companyId}/tasks/${task.key}`) // a new load: nothing cached yet
    const timeline = page.getByRole('region', { name: 'Timeline' })
    await timeline.getByRole('listitem', { name: 'Run of …' }).waitFor()
    const text = await timeline.textContent()
    expect(text).not.toContain('no longer here')
    expect(text).not.toContain('Someone')
    release()
    await timeline.getByRole('listitem', { name: 'Run of Grace' }).waitFor()
    await page.unroute(agentsList)
  })

  it('says a missing task, run or agent does not exist, with the way back', async () => {
    await visit(page, `${server.url}/c/${companyId}/tasks/ACME-999`)
    const alert = page.getByRole('alert')
    await alert.getByText('This task does not exist or was deleted.').waitFor()
    await alert.getByRole('link', { name: 'Back to the tasks' }).click()
    await page.getByRole('heading', { name: 'Tasks' }).waitFor()

    await visit(page, `${server.url}/c/${companyId}/runs/00000000-0000-4000-8000-000000000000`)
    await page.getByRole('alert').getByText('This run does not exist or was deleted.').waitFor()
    await page.getByRole('alert').getByRole('link', { name: 'Back to the runs' }).waitFor()
    await visit(page, `${server.url}/c/${companyId}/agents/00000000-0000-4000-8000-000000000000`)
    await page.getByRole('alert').getByText('This agent does not exist or was deleted.').waitFor()
    await page.getByRole('alert').getByRole('link', { name: 'Back to the agents' }).waitFor()
    // A link cut short is no run id at all: said so, not as a validation error about "run_id".
    await visit(page, `${server.url}/c/${companyId}/runs/00000000-0000-4000`)
    await page.getByRole('alert').getByText('This link does not lead to anything: it may be mistyped or cut short.').waitFor()
    await page.getByRole('alert').getByRole('link', { name: 'Back to the runs' }).waitFor()
  })

  it('offers to try again when the server cannot be reached', async () => {
    await visit(page, `${server.url}/c/${companyId}/runs`)
    await page.getByRole('row', { name: 'Run of Grace' }).waitFor()
    // The API stops answering: the page's next request fails, and says so with a way to retry.
    await page.route('**/api/companies/*/runs?**', (route) => route.abort('connectionrefused'))
    await page.getByLabel('Status').selectOption('succeeded')
    const alert = page.getByRole('alert')
    await alert.getByText('Cannot reach the server.', { exact: false }).waitFor({ timeout: 30_000 })
    await page.unroute('**/api/companies/*/runs?**')
    await alert.getByRole('button', { name: 'Try again' }).click()
    await page.getByText('No runs.').waitFor()
  })

  it('names the task and the runner of each active run on the dashboard', async () => {
    const linus = await client.agents.hire(companyId, { name: 'Linus', title: 'Tester' })
    const second = await client.tasks.create(companyId, { title: 'Test the checkout', status: 'todo', assignee_agent_id: linus.id })
    const claimed = await client.runs.claim(companyId, { runner_id: 'desk-2', agent_ids: [linus.id] })
    expect(claimed?.run.task_id).toBe(second.id)
    await visit(page, `${server.url}/c/${companyId}`)
    const row = page.locator('[data-card="active-runs"]').getByRole('row').filter({ hasText: 'Linus' })
    await row.getByRole('link', { name: second.key }).waitFor()
    expect(await row.textContent()).toContain('on runner desk-2')
  })
})
