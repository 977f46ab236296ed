// The web app's part of the hardening: the page the registration email links to confirms the
// address once; a hire an agent proposes shows every proposed setting before Approve. Against a
// real `shopfloor serve` with a real SMTP server, in Chromium, at a desktop and a phone width.
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ShopfloorClient } from '../../src/client/api.ts'
import { type SmtpSink, startSmtpSink } from '../accounts/smtp-sink.ts'
import { type Browser, launchBrowser, type RunningServer, screenshot, signIn, startServer } from './harness.ts'

const PASSWORD = 'correct horse battery'
const owner = { name: 'Grace Hopper', email: `harden-${Date.now().toString(36)}@example.test` }

let server: RunningServer
let smtp: SmtpSink
let client: ShopfloorClient
const browsers: Browser[] = []

beforeAll(async () => {
  smtp = await startSmtpSink({ user: 'mailer', password: 'secret' })
  server = await startServer({
    SMTP_HOST: '127.0.0.1', SMTP_PORT: String(smtp.port), SMTP_USER: 'mailer', SMTP_PASSWORD: 'secret', MAIL_FROM: 'no-reply@shopfloor.test',
  })
  client = new ShopfloorClient({ baseUrl: server.url })
  await client.auth.register({ ...owner, password: PASSWORD })
}, 180_000)
afterAll(async () => {
  for (const b of browsers) await b.close()
  await server?.stop()
  await smtp?.close()
})

async function pageAt(width: number): Promise<Page> {
  const browser = await launchBrowser({ width, height: 860 })
  browsers.push(browser)
  return browser.context.newPage()
}

describe('the verification link', () => {
  it('confirms the address once; used again it says the link is spent', async () => {
    const link = /(http:\/\/\S+\/verify-email\?token=[A-Za-z0-9_-]+)/.exec((await smtp.mailTo(owner.email)).text)![1]
    const page = await pageAt(1360)
    await page.goto(link)
    await page.getByText('Your email address is confirmed.').waitFor()
    await screenshot(page, 'verify-email-1360')
    const phone = await pageAt(390)
    await phone.goto(link)
    await phone.getByRole('alert').getByText('Invalid, used or expired email verification link').waitFor()
    await screenshot(phone, 'verify-email-used-390')
  })
})

describe('a hire an agent proposes', () => {
  it('shows every proposed setting before Approve', async () => {
    const company = await client.companies.create({ name: 'Harbour Works' })
    const manager = await client.agents.hire(company.id, { name: 'Mara', adapter: 'simulated', monthly_budget_cents: 5000 })
    await client.tasks.create(company.id, { title: 'Plan the launch', assignee_agent_id: manager.id })
    const claimed = await client.runs.claim(company.id, { runner_id: 'e2e-runner' })
    const agent = new ShopfloorClient({ baseUrl: server.url, credentials: { apiKey: claimed!.run_token! } })
    const proposed = await agent.agents.hire(company.id, {
      name: 'Quill', title: 'Copywriter', adapter: 'agent_cli_2', adapter_config: { model: 'gpt-5' }, heartbeat_cron: '0 9 * * 1-5',
      monthly_budget_cents: 2500, max_runs_per_hour: 4, instructions: 'Write the launch copy.',
    })
    expect(proposed.status).toBe('pending_approval')
    for (const width of [1360, 390]) {
      const page = await pageAt(width)
      await signIn(page, server.url, owner.email, PASSWORD, /.+/)
      await page.goto(`${server.url}/c/${company.id}/approvals`)
      const card = page.getByRole('article', { name: 'Hire agent approval' })
      await card.getByText('Proposed settings').waitFor()
      // The heartbeat in words, its cron on hover.
      for (const text of ['gpt-5', 'Write the launch copy.', 'At 09:00, Monday through Friday', 'at most 4, then paused for approval']) await card.getByText(text).first().waitFor()
      await card.getByTitle('0 9 * * 1-5').first().waitFor()
      await card.getByRole('button', { name: 'Approve' }).waitFor()
      await screenshot(page, `approval-proposed-hire-${width}`, { fullPage: true })
    }
  })
})
