// The Webhooks page against a real `shopfloor serve` (its delivery worker included) and real
// receivers on this machine: subscribing shows the signing secret once, a delivery to a working
// receiver shows in the log, a failing receiver's delivery is sent again from the page's Retry
// once the receiver works, and a member is told plainly that only owners and admins manage them.
import type { Page, Response } from 'playwright-core'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ShopfloorClient } from '../../src/client/api.ts'
import { type SmtpSink, startSmtpSink } from '../accounts/smtp-sink.ts'
import { scratchPostgres } from '../helpers.ts'
import { type Receiver, startReceiver } from '../webhooks/receiver.ts'
import { type Browser, launchBrowser, type RunningServer, screenshot, startServer, visit } from './harness.ts'

const PASSWORD = 'correct horse battery'
const stamp = Date.now().toString(36)
const owner = { name: 'Ada Lovelace', email: `hooks-owner-${stamp}@example.test` }
const member = { name: 'Charles Babbage', email: `hooks-member-${stamp}@example.test` }

let server: RunningServer
let database: Awaited<ReturnType<typeof scratchPostgres>> = null
let smtp: SmtpSink
let working: Receiver
let failing: Receiver
let browser: Browser
let page: Page
let client: ShopfloorClient
let companyId = ''
let secret = ''

async function signIn(who: { email: string }, landing: string) {
  await page.getByLabel('Email').fill(who.email)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: landing }).waitFor()
}

const shot = (name: string) => screenshot(page, name, { fullPage: true })

/** The statuses of the page's requests for a webhook's delivery log, from now until stop(). */
function deliveriesAsked(hookId: string): { statuses: number[]; stop(): void } {
  const statuses: number[] = []
  const listen = (response: Response) => {
    if (response.url().includes(`/webhooks/${hookId}/deliveries`)) statuses.push(response.status())
  }
  page.on('response', listen)
  return { statuses, stop: () => page.off('response', listen) }
}

describe('the Webhooks page', () => {
  beforeAll(async () => {
    smtp = await startSmtpSink({ user: 'mailer', password: 'secret' })
    working = await startReceiver()
    failing = await startReceiver()
    database = await scratchPostgres()
    server = await startServer({
      ...(database ? { DATABASE_URL: database.url } : {}),
      // The receivers listen on this machine's loopback address, refused otherwise.
      WEBHOOKS_ALLOW_PRIVATE: 'true',
      SMTP_HOST: '127.0.0.1', SMTP_PORT: String(smtp.port), SMTP_USER: 'mailer', SMTP_PASSWORD: 'secret', MAIL_FROM: 'no-reply@shopfloor.test',
    })
    client = new ShopfloorClient({ baseUrl: server.url })
    await client.auth.register({ ...owner, password: PASSWORD })
    companyId = (await client.companies.create({ name: 'Hookworks', task_prefix: 'HOOK' })).id
    // A member, by invitation as people join.
    await client.invitations.create(companyId, { email: member.email, role: 'member' })
    const token = /token=([A-Za-z0-9_-]+)/.exec((await smtp.mailTo(member.email)).text)![1]
    const joiner = new ShopfloorClient({ baseUrl: server.url })
    await joiner.auth.register({ ...member, password: PASSWORD })
    await joiner.invitations.accept(token)

    browser = await launchBrowser()
    page = browser.context.pages()[0] ?? (await browser.context.newPage())
    page.setDefaultTimeout(15_000)
    await page.setViewportSize({ width: 1280, height: 800 })
    await page.goto(`${server.url}/sign-in`)
    await signIn(owner, 'Hookworks')
  })

  afterAll(async () => {
    await browser?.close()
    await server?.stop()
    await database?.drop()
    await working?.close()
    await failing?.close()
    await smtp?.close()
  })

  it('subscribes a URL from the page and shows its secret once', async () => {
    await visit(page, `${server.url}/c/${companyId}/settings`)
    await page.getByRole('region', { name: 'Integrations and data' }).getByRole('link', { name: 'Webhooks' }).click()
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor()
    await page.getByText('No webhooks yet.').waitFor()
    await page.getByRole('button', { name: 'New webhook' }).click()
    const dialog = page.getByRole('dialog', { name: 'New webhook' })
    await dialog.getByLabel(/URL/).fill(working.url)
    await dialog.getByLabel(/Events/).fill('task.*')
    await dialog.getByLabel('Description').fill('Tells the build bot')
    await dialog.getByRole('button', { name: 'Subscribe' }).click()

    const shown = page.getByRole('region', { name: 'Signing secret' })
    await shown.getByText('you will not see it again').waitFor()
    secret = await shown.getByLabel('Signing secret').inputValue()
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/)
    await shown.getByRole('button', { name: 'Copy' }).waitFor()
    await shown.getByRole('button', { name: 'I have copied it' }).click()
    await shown.waitFor({ state: 'detached' })

    const panel = page.getByRole('region', { name: working.url })
    await panel.getByText('task.*').waitFor()
    await panel.getByText('Tells the build bot').waitFor()
    // Not on the page again, nor after a reload: the API never answers it twice.
    expect(await page.content()).not.toContain(secret)
    await page.reload()
    await page.getByRole('region', { name: working.url }).waitFor()
    expect(await page.content()).not.toContain(secret)
  })

  it('shows a delivery to a working receiver in the log, signed with that secret', async () => {
    const task = await client.tasks.create(companyId, { title: 'Ship the changelog' })
    await expect.poll(() => working.received.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(1)
    const sent = working.received[0]
    expect(new Webhook(secret).verify(sent.body, sent.headers)).toMatchObject({ type: 'task.created', company_id: companyId, data: { id: task.id, title: 'Ship the changelog' } })

    const panel = page.getByRole('region', { name: working.url })
    await panel.getByRole('button', { name: 'Show deliveries' }).click()
    const row = panel.getByRole('row', { name: 'task.created' })
    await row.getByText('Delivered').waitFor()
    await row.getByText('HTTP 204').waitFor()
    expect(await row.getByRole('cell').nth(2).textContent()).toBe('1')
  })

  it("retries a failing receiver's delivery from the page once it works again", async () => {
    failing.answer = 500
    await client.webhooks.create(companyId, { url: failing.url, events: ['goal.*'], description: 'Flaky dashboard' })
    await client.goals.create(companyId, { title: 'Launch in May' })
    await page.reload()
    const panel = page.getByRole('region', { name: failing.url })
    await panel.getByRole('button', { name: 'Show deliveries' }).click()
    const row = panel.getByRole('row', { name: 'goal.created' })
    await row.getByText('HTTP 500').waitFor()
    await row.getByText('Pending').waitFor()
    // The second attempt comes about 5 s after the first; the third would wait a minute.
    await expect.poll(() => row.getByRole('cell').nth(2).textContent(), { timeout: 20_000 }).toBe('2')
    const other = page.getByRole('region', { name: working.url })
    await other.getByRole('button', { name: 'Show deliveries' }).click()
    await other.getByRole('row', { name: 'task.created' }).waitFor()
    await shot('webhooks')
    // At phone width the page fits the screen, and each delivery is a card of named lines, its
    // Retry button in view (as a table the log squeezed "Attempts" to a letter a line).
    const phone = await browser.context.newPage()
    await phone.setViewportSize({ width: 390, height: 844 })
    await phone.goto(page.url())
    await phone.getByRole('region', { name: failing.url }).getByRole('button', { name: 'Show deliveries' }).click()
    await phone.getByRole('row', { name: 'goal.created' }).waitFor()
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    const retry = (await phone.getByRole('button', { name: 'Retry goal.created' }).boundingBox())!
    expect(retry.x + retry.width).toBeLessThanOrEqual(390)
    const attempts = await phone.getByRole('row', { name: 'goal.created' }).getByRole('cell').nth(2).evaluate((td) => getComputedStyle(td, '::before').content)
    expect(attempts).toBe('"Attempts: "')
    await screenshot(phone, 'webhooks-phone', { fullPage: true })
    await phone.close()

    failing.answer = 200
    await row.getByRole('button', { name: 'Retry goal.created' }).click()
    await row.getByText('Delivered').waitFor({ timeout: 10_000 })
    await row.getByText('HTTP 200').waitFor()
    expect(await row.getByRole('cell').nth(2).textContent()).toBe('3')
    expect(failing.received).toHaveLength(3)
  })

  it('changes and deletes a subscription', async () => {
    const panel = page.getByRole('region', { name: failing.url })
    await panel.getByRole('button', { name: 'Change' }).click()
    const dialog = page.getByRole('dialog', { name: 'Change webhook' })
    await dialog.getByLabel(/Events/).fill('goal.*, project.created')
    await dialog.getByLabel(/Enabled/).uncheck()
    await dialog.getByRole('button', { name: 'Save' }).click()
    await panel.getByText('goal.*, project.created').waitFor()
    await panel.getByText('Disabled', { exact: true }).waitFor()
    expect((await client.webhooks.get(companyId, (await client.webhooks.list(companyId)).find((h) => h.url === failing.url)!.id)).enabled).toBe(false)

    // Deleted with its delivery log open: the log is not asked for again (it would be a 404).
    const hookId = (await client.webhooks.list(companyId)).find((h) => h.url === failing.url)!.id
    const asked = deliveriesAsked(hookId)
    await panel.getByRole('button', { name: 'Hide deliveries' }).waitFor() // open since the retry
    await panel.getByRole('row', { name: 'goal.created' }).waitFor()
    page.once('dialog', (confirm) => void confirm.accept())
    await panel.getByRole('button', { name: 'Delete' }).click()
    await panel.waitFor({ state: 'detached' })
    expect((await client.webhooks.list(companyId)).map((h) => h.url)).toEqual([working.url])
    await page.waitForTimeout(4_000) // more than the log's 3 seconds between fetches
    asked.stop()
    expect(asked.statuses.filter((status) => status !== 200)).toEqual([])
  })

  it('stops asking for the delivery log of a webhook deleted elsewhere', async () => {
    const hook = await client.webhooks.create(companyId, { url: `${working.url}/elsewhere`, events: ['agent.*'] })
    await page.reload()
    const panel = page.getByRole('region', { name: hook.url })
    const asked = deliveriesAsked(hook.id)
    await panel.getByRole('button', { name: 'Show deliveries' }).click()
    await panel.getByText('Nothing sent yet.', { exact: false }).waitFor()
    await client.webhooks.delete(companyId, hook.id) // by someone else, or in another tab
    await panel.getByText('This webhook does not exist or was deleted.').waitFor()
    await shot('webhook-deleted-elsewhere')
    const after404 = asked.statuses.length
    await page.waitForTimeout(7_000) // two more fetches, were the log still polled
    asked.stop()
    expect(asked.statuses.slice(after404)).toEqual([])
    expect(asked.statuses.filter((status) => status === 404)).toHaveLength(1)
  })

  it('tells a member in a sentence that only owners and admins manage webhooks', async () => {
    await page.evaluate(() => localStorage.clear())
    await page.goto(`${server.url}/c/${companyId}/webhooks`) // loaded again: signed out
    await signIn(member, 'Webhooks')
    await page.getByText('Only owners and admins of the company manage webhooks.', { exact: false }).waitFor()
    expect(await page.getByRole('alert').count()).toBe(0)
    expect(await page.getByRole('button', { name: 'New webhook' }).count()).toBe(0)
    expect(await page.getByText(working.url).count()).toBe(0)
  })
})
