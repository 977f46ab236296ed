// Verified work in the browser: a task in review shows its run's changes (branch, files, commits),
// the checks with their output and the diff drawn by react-diff-view, at desktop and phone widths;
// the review bar requests changes and approves; the project dialog edits the checks. The run's
// changes, checks and patch are reported through the runner protocol as a runner does.
import fs from 'node:fs'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ShopfloorClient } from '../../src/client/api.ts'
import { type Browser, launchBrowser, type RunningServer, SCREENSHOTS, screenshot, sharedServer, signIn, visit } from './harness.ts'

const PASSWORD = 'correct horse battery'
const PATCH = `diff --git a/src/widget.ts b/src/widget.ts
index 3b18e51..a9c2f0e 100644
--- a/src/widget.ts
+++ b/src/widget.ts
@@ -1,5 +1,7 @@
 export function widget(size: number) {
-  return size * 2
+  // Widgets are never smaller than one unit.
+  const safe = Math.max(1, size)
+  return safe * 2
 }
 
 export const DEFAULT_SIZE = 3
diff --git a/test/widget.test.ts b/test/widget.test.ts
new file mode 100644
index 0000000..e69de29
--- /dev/null
+++ b/test/widget.test.ts
@@ -0,0 +1,4 @@
+import { widget } from '../src/widget.ts'
+test('a widget of size 0 is one unit wide', () => {
+  expect(widget(0)).toBe(2)
+})
`

let server: RunningServer
let browser: Browser
let phone: Browser
let page: Page
let client: ShopfloorClient
let companyId = ''
let email = ''

describe('verified work on the task page', () => {
  beforeAll(async () => {
    server = await sharedServer()
    client = new ShopfloorClient({ baseUrl: server.url })
    email = `work-${Date.now().toString(36)}@example.test`
    await client.auth.register({ name: 'Ada Lovelace', email, password: PASSWORD })
    companyId = (await client.companies.create({ name: 'Widget Works', task_prefix: 'WID' })).id
    browser = await launchBrowser()
    page = browser.context.pages()[0] ?? (await browser.context.newPage())
    page.setDefaultTimeout(15_000)
    await signIn(page, server.url, email, PASSWORD, 'Widget Works')
  })
  afterAll(async () => {
    await browser?.close()
    await phone?.close()
  })

  /** A task in review whose run reported changes, checks and a patch, as a runner does. */
  async function taskInReview(title: string) {
    const agent = await client.agents.hire(companyId, { name: `Grace ${title.length}`, adapter: 'process' })
    const project = await client.projects.create(companyId, { name: `Widgets ${title.length}`, repository: 'https://git.example.test/widgets.git' })
    const task = await client.tasks.create(companyId, { title, assignee_agent_id: agent.id, project_id: project.id })
    const { run } = (await client.runs.claim(companyId, { runner_id: 'laptop-1', agent_ids: [agent.id] }))!
    await client.runs.report(companyId, run.id, {
      runner_id: 'laptop-1',
      changes: {
        branch: `shopfloor/${task.key}`, base_commit: '3b18e51c0ffee'.padEnd(40, '0'), head_commit: 'a9c2f0e1beef'.padEnd(40, '0'), pushed: true,
        commits: [{ sha: 'a9c2f0e1beef'.padEnd(40, '0'), message: 'Widgets are never smaller than one unit' }],
        files: [
          { path: 'src/widget.ts', status: 'modified', additions: 3, deletions: 1 },
          { path: 'test/widget.test.ts', status: 'added', additions: 4, deletions: 0 },
        ],
        additions: 7, deletions: 1,
      },
      checks: [
        { name: 'unit tests', status: 'passed', exit_code: 0, duration_ms: 1840, output_tail: '2 passed' },
        { name: 'lint', status: 'failed', exit_code: 1, duration_ms: 420, output_tail: 'src/widget.ts:2:3 error Unexpected comment style' },
      ],
    })
    await client.runs.uploadPatch(companyId, run.id, 'laptop-1', PATCH)
    await client.tasks.update(companyId, task.id, { status: 'in_review' })
    await client.runs.report(companyId, run.id, { runner_id: 'laptop-1', status: 'succeeded', summary: 'Widgets are never smaller than one unit.' })
    return { agent, project, task, run }
  }

  it('shows the changes, the checks and the diff; Request changes sends the work back with the comment', async () => {
    const { agent, task } = await taskInReview('Keep widgets at least one unit wide')
    await visit(page, `${server.url}/c/${companyId}/tasks/${task.key}`)
    const changes = page.getByRole('region', { name: 'Changes' })
    await changes.getByText(`shopfloor/${task.key}`).waitFor()
    await changes.getByText('2 files').waitFor()
    const diff = changes.getByLabel('Diff')
    await diff.getByText('src/widget.ts').first().waitFor()
    await diff.getByText('const safe = Math.max(1, size)').waitFor()
    await diff.getByText("expect(widget(0)).toBe(2)").waitFor()
    const checks = changes.getByRole('list', { name: 'Checks' })
    await checks.getByText('unit tests').waitFor()
    // A failing check is open with its output.
    expect(await checks.getByText('src/widget.ts:2:3 error Unexpected comment style').isVisible()).toBe(true)
    await changes.scrollIntoViewIfNeeded()
    await screenshot(page, 'verified-work-task-1360', { fullPage: true })

    const review = page.getByRole('region', { name: 'Review' })
    await review.getByRole('button', { name: 'Request changes' }).click()
    await review.getByLabel('What to change').fill('Use a block comment, as lint asks.')
    await review.getByRole('button', { name: 'Send back to the assignee' }).click()
    await review.waitFor({ state: 'detached' })
    expect((await client.tasks.get(companyId, task.id)).status).toBe('todo')
    const queued = await client.runs.list(companyId, { task_id: task.id, status: 'queued' })
    expect(queued).toHaveLength(1)
    expect(queued[0]).toMatchObject({ agent_id: agent.id, trigger: 'assignment' })
    expect((await client.comments.list(companyId, task.id)).at(-1)?.body).toBe('Use a block comment, as lint asks.')
  })

  it('on a phone the diff stays within the screen; Approve moves the task to done', async () => {
    const { task } = await taskInReview('Approve the widget floor')
    phone = await launchBrowser({ width: 390, height: 844 })
    const small = await phone.context.newPage()
    small.setDefaultTimeout(15_000)
    await signIn(small, server.url, email, PASSWORD, 'Widget Works')
    await visit(small, `${server.url}/c/${companyId}/tasks/${task.key}`)
    const changes = small.getByRole('region', { name: 'Changes' })
    await changes.getByLabel('Diff').getByText('const safe = Math.max(1, size)').waitFor()
    const width = await small.evaluate(() => document.documentElement.scrollWidth)
    expect(width).toBeLessThanOrEqual(390)
    await changes.scrollIntoViewIfNeeded()
    await screenshot(small, 'verified-work-task-390', { fullPage: true })
    fs.mkdirSync(SCREENSHOTS, { recursive: true })
    await changes.screenshot({ path: path.join(SCREENSHOTS, 'verified-work-changes-390.png') })
    await small.getByRole('region', { name: 'Review' }).getByRole('button', { name: 'Approve' }).click()
    await small.getByRole('region', { name: 'Review' }).waitFor({ state: 'detached' })
    expect((await client.tasks.get(companyId, task.id)).status).toBe('done')
  })

  it('the project dialog edits the checks, the default branch, require_checks and merge_on_approve', async () => {
    const project = await client.projects.create(companyId, { name: 'Checked project', repository: 'git@git.example.test:checked.git' })
    await visit(page, `${server.url}/c/${companyId}/projects`)
    await page.getByRole('row', { name: /Checked project/ }).getByRole('button', { name: 'Edit' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByLabel(/^Default branch/).fill('trunk')
    await dialog.getByRole('button', { name: 'Add a check' }).click()
    const first = dialog.getByRole('group', { name: 'Check 1' })
    await first.getByLabel('Name').fill('unit tests')
    await first.getByLabel('Command').fill('npm test')
    await first.getByLabel('Timeout (s)').fill('120')
    await dialog.getByLabel('Agents cannot mark a task done until its checks pass').check()
    await dialog.getByLabel("Merge a task's branch into the default branch when its work is approved").check()
    await screenshot(page, 'verified-work-project-checks-1360')
    await dialog.getByRole('button', { name: 'Save' }).click()
    await dialog.waitFor({ state: 'detached' })
    expect(await client.projects.get(companyId, project.id)).toMatchObject({
      default_branch: 'trunk', require_checks: true, merge_on_approve: true, checks: [{ name: 'unit tests', command: 'npm test', timeout_seconds: 120 }],
    })
    // The same dialog on a phone (signed in by the test before), filled in as saved, within the screen.
    const small = await phone.context.newPage()
    await visit(small, `${server.url}/c/${companyId}/projects`)
    await small.getByRole('row', { name: /Checked project/ }).getByRole('button', { name: 'Edit' }).click()
    await small.getByRole('dialog').getByRole('group', { name: 'Check 1' }).getByLabel('Command').waitFor()
    expect(await small.getByRole('dialog').getByRole('group', { name: 'Check 1' }).getByLabel('Command').inputValue()).toBe('npm test')
    expect(await small.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await small.getByRole('dialog').getByRole('button', { name: 'Add a check' }).scrollIntoViewIfNeeded()
    await screenshot(small, 'verified-work-project-checks-390')
  })
})
