// A newcomer's first run when the runner has no Claude Code: the guided start makes a runner key
// limited to the company and named after it, gives a command that pastes in a clone (npx) and,
// once a runner without the CLI connects, offers --simulate; a queued run says why it waits
// wherever it shows (task page, dashboard, agent page, hire form), at 1360 and at 390 wide; and
// the one-click trial runs the first task with a simulated agent inside the server.
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ShopfloorClient } from '../../src/client/api.ts'
import { type Browser, launchBrowser, narrowTexts, type RunningServer, screenshot, sharedServer, signIn, visit } from './harness.ts'

const PASSWORD = 'correct horse battery'
const PHONE = { width: 390, height: 844 }
const DESKTOP = { width: 1360, height: 860 }
const REASON = /No connected runner can run Claude Code: install it on dana@vm or pick another agent type/

let server: RunningServer
let browser: Browser
let page: Page
let client: ShopfloorClient
let companyId = ''
let graceId = ''

describe('the first run without Claude Code', () => {
  beforeAll(async () => {
    server = await sharedServer()
    client = new ShopfloorClient({ baseUrl: server.url })
    const email = `first-run-${Date.now().toString(36)}@example.test`
    await client.auth.register({ name: 'Dana Scully', email, password: PASSWORD })
    companyId = (await client.companies.create({ name: 'Nimbus Weather', task_prefix: 'NIMB' })).id
    await client.companies.create({ name: 'Other Venture', task_prefix: 'OTH' })
    graceId = (await client.agents.hire(companyId, { name: 'Grace', adapter: 'agent_cli_1' })).id
    browser = await launchBrowser(DESKTOP)
    page = browser.context.pages()[0] ?? (await browser.context.newPage())
    page.setDefaultTimeout(15_000)
    await signIn(page, server.url, email, PASSWORD, /Nimbus Weather|Other Venture|Companies/)
  })

  afterAll(async () => {
    await browser?.close()
  })

  it('makes a runner key for this company only, named after it, with a command that pastes in a clone', async () => {
    await visit(page, `${server.url}/c/${companyId}/start`)
    const connect = page.getByRole('listitem', { name: 'Connect a runner' })
    await connect.getByText(/will act in Nimbus Weather only/).waitFor()
    await connect.getByRole('button', { name: 'Make an API key' }).click()
    const command = await connect.getByLabel('Runner command').inputValue()
    expect(command).toMatch(new RegExp(`^SHOPFLOOR_API_KEY=svc_live_\\S+ npx shopfloor runner --url ${server.url} --company NIMB$`))
    const [key] = await client.apiKeys.list()
    expect(key.name).toMatch(/^Nimbus Weather runner \d{4}-\d\d-\d\d \d\d:\d\d$/)
    expect(key.company_id).toBe(companyId)
    // The key sees this company alone.
    const asRunner = new ShopfloorClient({ baseUrl: server.url, credentials: { apiKey: /SHOPFLOOR_API_KEY=(\S+)/.exec(command)![1] } })
    expect((await asRunner.companies.list()).map((c) => c.name)).toEqual(['Nimbus Weather'])

    // A runner with no agent CLI connects (its claim says what it can run: only commands).
    expect(await asRunner.runs.claim(companyId, { runner_id: 'dana@vm', adapters: ['process'] })).toBeNull()
    await connect.getByText('dana@vm is connected, but found no agent CLI.').waitFor({ timeout: 20_000 })
    await connect.getByText(REASON).waitFor()
    expect(await connect.getByLabel('Simulated runner command').inputValue()).toMatch(/ npx shopfloor runner --url \S+ --company NIMB --simulate$/)
    await screenshot(page, 'start-no-cli', { fullPage: true })
  })

  it('says why the run waits on the task page, the dashboard, the agent page and the hire form, on a phone too', async () => {
    const task = await client.tasks.create(companyId, { title: 'Write the forecast page', assignee_agent_id: graceId })
    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewportSize(viewport)
      await visit(page, `${server.url}/c/${companyId}/tasks/${task.key}`)
      const why = page.getByRole('status', { name: 'Why it waits' })
      await why.getByText(REASON).waitFor()
      expect(await why.getByRole('button', { name: 'Try it now with a simulated agent' }).isVisible()).toBe(true)
      if (viewport === PHONE) {
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width)
        expect(await narrowTexts(page)).toEqual([])
        await screenshot(page, 'phone-task-waiting', { fullPage: true })
      }

      await visit(page, `${server.url}/c/${companyId}`)
      await page.locator('[data-card="active-runs"]').getByText(REASON).waitFor()

      await visit(page, `${server.url}/c/${companyId}/agents/${graceId}`)
      await page.getByText(REASON).first().waitFor()

      await visit(page, `${server.url}/c/${companyId}/agents`)
      await page.getByRole('button', { name: 'Hire agent' }).click()
      const dialog = page.getByRole('dialog', { name: 'Hire an agent' })
      await dialog.getByRole('note', { name: 'Runners' }).getByText(REASON).waitFor()
      await dialog.getByLabel('Works with').selectOption({ label: 'Any command' })
      await dialog.getByRole('note', { name: 'Runners' }).getByText('dana@vm can run Any command.').waitFor()
      // Runner flags are folded under Details, not in the form's main text.
      expect(await dialog.getByText('--allow-agent-env', { exact: false }).isVisible()).toBe(false)
      await dialog.getByRole('button', { name: 'Cancel' }).click()
    }
  })

  it('runs the first task with a simulated agent in one click, no terminal needed', async () => {
    await visit(page, `${server.url}/c/${companyId}/tasks/NIMB-1`)
    await page.getByRole('button', { name: 'Try it now with a simulated agent' }).click()
    const timeline = page.getByRole('region', { name: 'Timeline' })
    await timeline.getByText('Trial run: a simulated agent inside Shopfloor', { exact: false }).first().waitFor()
    await timeline.getByText(/Simulated work done on NIMB-1 "Write the forecast page"/).first().waitFor({ timeout: 20_000 })
    await expect.poll(async () => (await client.tasks.get(companyId, 'NIMB-1')).status, { timeout: 20_000 }).toBe('in_review')
    await screenshot(page, 'task-trial', { fullPage: true })
  })
})
