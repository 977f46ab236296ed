// A run seen live on its task's page: a real `shopfloor runner` process runs an agent command that
// works for a few seconds (prints its reasoning line by line, calls a tool, reports usage), and the
// task page's timeline shows the transcript growing while the run runs, then its outcome, with the
// task's status and assignee changes among them.
import fs from 'node:fs'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ShopfloorClient } from '../../src/client/api.ts'
import { humanize } from '../../web/src/lib/format.ts'
import { type RunnerProcess, startRunner } from '../runner/harness.ts'
import { tempDir } from '../server-process.ts'
import { type Browser, launchBrowser, type RunningServer, screenshot, sharedServer, signIn, slowAgent, visit } from './harness.ts'

const PASSWORD = 'correct horse battery'

// An agent command (the process adapter) that takes its time: each line goes out, then a pause, so the runner's
// transcript batches (flushed every second here) reach the server one by one.
const SLOW_AGENT = slowAgent([
  'Reading the task and the repository layout.',
  2,
  'SHOPFLOOR_USAGE {"tokens_in": 800, "tokens_out": 120, "cost_cents": 3}',
  'Drafting the launch post now.',
  2,
  'SHOPFLOOR_USAGE {"tokens_in": 2400, "tokens_out": 900, "cost_cents": 9}',
  'Done: the draft is in docs/launch.md.',
  1.5,
])

let server: RunningServer
let browser: Browser
let page: Page
let runner: RunnerProcess | null = null
let client: ShopfloorClient
let companyId = ''

describe('a live run on the task page', () => {
  beforeAll(async () => {
    server = await sharedServer()
    client = new ShopfloorClient({ baseUrl: server.url })
    const email = `live-${Date.now().toString(36)}@example.test`
    await client.auth.register({ name: 'Ada Lovelace', email, password: PASSWORD })
    companyId = (await client.companies.create({ name: 'Acme Robotics', task_prefix: 'ACME' })).id
    browser = await launchBrowser()
    page = browser.context.pages()[0] ?? (await browser.context.newPage())
    page.setDefaultTimeout(15_000)
    await signIn(page, server.url, email, PASSWORD, 'Acme Robotics')
  })

  afterAll(async () => {
    await runner?.stop()
    await browser?.close()
  })

  it('shows the transcript growing while the runner works, then the outcome', async () => {
    const grace = await client.agents.hire(companyId, { name: 'Grace', title: 'Writer', adapter: 'process' })
    const task = await client.tasks.create(companyId, { title: 'Write the launch post', status: 'todo' })
    await visit(page, `${server.url}/c/${companyId}/tasks/${task.key}`)
    const timeline = page.getByRole('region', { name: 'Timeline' })
    await timeline.getByText('Nothing has happened on this task yet.').waitFor()

    const dir = tempDir('shopfloor-slow-agent-')
    const script = path.join(dir, 'agent.mjs')
    fs.writeFileSync(script, SLOW_AGENT)
    const key = await client.apiKeys.create({ name: 'e2e runner' })
    runner = startRunner(
      ['--url', server.url, '--company', companyId, '--runner-id', 'laptop-1', '--agent-command', `"${process.execPath}" "${script}"`, '--flush-seconds', '1', '--poll-seconds', '5'],
      { SHOPFLOOR_API_KEY: key.key },
    )
    // The page's fetches of the run: after the first, each asks only for the entries it lacks.
    const runFetches: URL[] = []
    page.on('request', (request) => {
      const url = new URL(request.url())
      if (/\/runs\/[0-9a-f-]{36}$/.test(url.pathname) && request.method() === 'GET') runFetches.push(url)
    })
    // Assigning the task queues Grace's run; the runner claims it.
    await client.tasks.update(companyId, task.id, { assignee_agent_id: grace.id })

    // Work first: the run and its transcript at the top of the page (folded on the timeline below).
    const run = page.getByRole('region', { name: 'Latest run' }).getByRole('listitem', { name: 'Run of Grace' })
    await run.getByText('Reading the task and the repository layout.').waitFor({ timeout: 30_000 })
    expect(await page.evaluate(() => {
      const top = document.querySelector('[aria-label="Latest run"]')!.getBoundingClientRect().top
      return top < document.querySelector('[aria-label="Details"]')!.getBoundingClientRect().top
    })).toBe(true)
    // Still running while the first line shows: the page is following it live.
    expect(await run.getByText('Done: the draft is in docs/launch.md.').count()).toBe(0)
    await run.getByText('live', { exact: true }).waitFor()
    await run.getByText('Drafting the launch post now.').waitFor()
    await expect.poll(() => run.locator('[data-usage]').textContent()).toMatch(/800 tokens in|2,400 tokens in/)
    await screenshot(page, 'task-live-run')
    // In the transcript: once the run has finished, its summary below says it too.
    await run.locator('.transcript .entry').getByText('Done: the draft is in docs/launch.md.').waitFor()
    await run.getByText('Succeeded').waitFor({ timeout: 30_000 })
    await expect.poll(() => run.locator('[data-usage]').textContent()).toMatch(/2,400 tokens in/)
    await run.getByText('on runner laptop-1').waitFor()
    // Every line once, in order, though most came in fetches of the new entries only.
    expect(runFetches.filter((url) => Number(url.searchParams.get('transcript_from')) > 0).length).toBeGreaterThan(0)
    const runId = runFetches.at(-1)!.pathname.split('/').at(-1)!
    const { transcript } = await client.runs.get(companyId, runId)
    const entries = run.locator('.transcript .entry')
    expect(await entries.count()).toBe(transcript!.length)
    for (const [i, entry] of transcript!.entries()) expect(await entries.nth(i).textContent()).toContain(entry.text.split('\n')[0])

    // Status and assignee changes from the audit, among the runs, in names: the assignment made
    // through the API, the claim moving the task to in progress, then a status change made now
    // through the API showing up live.
    await timeline.getByRole('listitem', { name: 'Ada Lovelace assigned it to Grace' }).waitFor()
    await timeline.getByRole('listitem', { name: 'Grace moved it from Todo to In progress' }).waitFor()
    const before = (await client.tasks.get(companyId, task.id)).status
    const after = before === 'done' ? 'cancelled' : 'done'
    await client.tasks.update(companyId, task.id, { status: after })
    await timeline.getByRole('listitem', { name: `Ada Lovelace moved it from ${humanize(before)} to ${humanize(after)}` }).waitFor()
    const order = await timeline.locator('ol.timeline > li').evaluateAll((items) => items.map((li) => li.getAttribute('aria-label')))
    expect(order).toContain('Run of Grace')
    expect(order.at(-1)).toBe(`Ada Lovelace moved it from ${humanize(before)} to ${humanize(after)}`)
    await screenshot(page, 'task-timeline', { fullPage: true })
  })
})
