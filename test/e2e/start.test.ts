// The first five minutes: sign up, name the company (its task prefix proposed), hire the first
// agent by its CLI's product name, make an API key and see the exact runner command, wait live
// until that runner (a real `shopfloor runner` process started with the command's key) connects,
// then give the agent a task. Also the Runners page and inviting a person from the settings page.
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ShopfloorClient } from '../../src/client/api.ts'
import { type RunnerProcess, startRunner } from '../runner/harness.ts'
import { type Browser, launchBrowser, type RunningServer, screenshot, sharedServer } from './harness.ts'

const PASSWORD = 'correct horse battery'
const email = `start-${Date.now().toString(36)}@example.test`

let server: RunningServer
let browser: Browser
let page: Page
let runner: RunnerProcess | null = null
let companyId = ''

const shot = (name: string) => screenshot(page, name, { fullPage: true })

describe('the guided start', () => {
  beforeAll(async () => {
    server = await sharedServer()
    browser = await launchBrowser()
    page = browser.context.pages()[0] ?? (await browser.context.newPage())
    page.setDefaultTimeout(15_000)
  })

  afterAll(async () => {
    await runner?.stop()
    await browser?.close()
  })

  it('goes from sign-up to a connected runner and a first task', async () => {
    await page.goto(`${server.url}/sign-up`)
    await page.getByLabel('Name').fill('Ada Lovelace')
    await page.getByLabel('Email').fill(email)
    await page.getByLabel(/Password/).fill(PASSWORD)
    await page.getByRole('button', { name: 'Create account' }).click()
    await page.getByRole('heading', { name: 'New company' }).waitFor()
    await page.getByLabel('Name').fill('Nimbus Weather')
    await expect.poll(() => page.getByLabel(/Task prefix/).inputValue()).toBe('NIMB')
    await page.getByRole('button', { name: 'Create company' }).click()
    await page.waitForURL(/\/start$/)
    companyId = page.url().split('/c/')[1].split('/')[0]

    const hire = page.getByRole('listitem', { name: 'Hire the first agent' })
    await hire.getByLabel('Agent name').fill('Grace')
    await hire.getByLabel('Works with').selectOption({ label: 'Codex' })
    await hire.getByRole('button', { name: 'Hire' }).click()
    await hire.getByText('Grace works with Codex.').waitFor()

    const connect = page.getByRole('listitem', { name: 'Connect a runner' })
    await connect.getByText('Waiting for a runner to connect…').waitFor()
    await connect.getByRole('button', { name: 'Make an API key' }).click()
    const command = await connect.getByLabel('Runner command').inputValue()
    expect(command).toMatch(new RegExp(`^SHOPFLOOR_API_KEY=svc_live_\\S+ npx shopfloor runner --url ${server.url} --company NIMB$`))
    await shot('start')
    const key = /SHOPFLOOR_API_KEY=(\S+)/.exec(command)![1]
    runner = startRunner(['--url', server.url, '--company', 'NIMB', '--runner-id', 'laptop-1', '--simulate', '--poll-seconds', '5'], { SHOPFLOOR_API_KEY: key })
    await connect.getByText(/laptop-1 is connected/).waitFor({ timeout: 30_000 })
    expect(await connect.getAttribute('data-state')).toBe('done')

    const task = page.getByRole('listitem', { name: 'Give it a task' })
    await task.getByLabel('A first task for Grace').fill('Write the forecast page')
    await task.getByRole('button', { name: 'Create and assign' }).click()
    await task.getByRole('link', { name: 'NIMB-1 Write the forecast page' }).click()
    // The simulated runner does the work; the task page shows the finished run.
    await page.getByRole('region', { name: 'Timeline' }).getByText(/Simulated work done on NIMB-1/).first().waitFor({ timeout: 30_000 })

    await page.getByRole('link', { name: 'Dashboard' }).click()
    await page.getByRole('heading', { name: 'Nimbus Weather' }).waitFor()
    expect(await page.getByRole('note', { name: 'Getting started' }).count()).toBe(0) // nothing left

    await page.getByRole('link', { name: 'Runners' }).click()
    const row = page.getByRole('row', { name: 'laptop-1' })
    await row.getByText('Online').waitFor()
    await shot('runners')
  })

  it('invites a person by email and revokes the invitation', async () => {
    await page.getByRole('link', { name: 'Settings' }).click()
    const people = page.getByRole('region', { name: 'People' })
    await people.getByRole('row', { name: 'Ada Lovelace' }).getByText('Owner').waitFor()
    await people.getByLabel('Invite by email').fill('bob@example.test')
    await people.getByLabel('As').selectOption('admin')
    await people.getByRole('button', { name: 'Send invitation' }).click()
    await people.getByRole('status').filter({ hasText: 'Invitation emailed to bob@example.test' }).waitFor()
    await people.getByText('as Admin').waitFor()
    const owner = new ShopfloorClient({ baseUrl: server.url })
    await owner.auth.login(email, PASSWORD)
    expect((await owner.invitations.list(companyId)).map((i) => [i.email, i.role])).toEqual([['bob@example.test', 'admin']])
    await shot('settings-people')
    page.once('dialog', (dialog) => void dialog.accept())
    await people.getByRole('button', { name: 'Revoke the invitation of bob@example.test' }).click()
    await people.getByText('as Admin').waitFor({ state: 'detached' })
    expect(await owner.invitations.list(companyId)).toEqual([])
  })
})
