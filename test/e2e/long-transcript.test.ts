// A run whose transcript is longer than a read of it carries (the last 2,000 entries): its page
// shows those, says how many earlier ones are not shown, and reads them a page at a time on
// request; a live report adds its entries after them.
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ShopfloorClient } from '../../src/client/api.ts'
import { type Browser, launchBrowser, narrowTexts, type RunningServer, screenshot, sharedServer, signIn, visit } from './harness.ts'

const PASSWORD = 'correct horse battery'

let server: RunningServer
let browser: Browser
let page: Page
let client: ShopfloorClient
let companyId = ''
let email = ''

describe('a run with a long transcript', () => {
  beforeAll(async () => {
    server = await sharedServer()
    client = new ShopfloorClient({ baseUrl: server.url })
    email = `long-${Date.now().toString(36)}@example.test`
    await client.auth.register({ name: 'Ada Lovelace', email, password: PASSWORD })
    companyId = (await client.companies.create({ name: 'Long Runs', task_prefix: 'LONG' })).id
    browser = await launchBrowser()
    page = browser.context.pages()[0] ?? (await browser.context.newPage())
    page.setDefaultTimeout(15_000)
    await signIn(page, server.url, email, PASSWORD, 'Long Runs')
  })

  afterAll(async () => {
    await browser?.close()
  })

  it('shows the last 2,000 entries, reads the earlier ones on request, and follows new ones', async () => {
    const agent = await client.agents.hire(companyId, { name: 'Marathon' })
    const woken = await client.agents.wake(companyId, agent.id, { reason: 'Count to 2,600.' })
    const claimed = await client.runs.claim(companyId, { runner_id: 'laptop-1' })
    expect(claimed!.run.id).toBe(woken.id)
    for (let from = 1; from <= 2600; from += 500) {
      const transcript = Array.from({ length: Math.min(500, 2601 - from) }, (_, i) => ({ text: `Step ${from + i}` }))
      await client.runs.report(companyId, woken.id, { runner_id: 'laptop-1', status: 'running', transcript })
    }
    // The wake's reason and 2,600 steps: 2,601 entries, of which the page holds the last 2,000.
    await visit(page, `${server.url}/c/${companyId}/runs/${woken.id}`)
    const transcript = page.getByRole('region', { name: 'Transcript' })
    await transcript.getByText('Step 2600', { exact: true }).waitFor()
    await transcript.getByText('601 earlier entries are not shown.').waitFor()
    expect(await transcript.locator('.entry').count()).toBe(2000)
    await page.evaluate(() => window.scrollTo(0, 0))
    await screenshot(page, 'run-long-transcript')

    // Earlier entries, 500 at a time, back to the wake's reason.
    await transcript.getByRole('button', { name: 'Show earlier entries' }).click()
    await transcript.getByText('101 earlier entries are not shown.').waitFor()
    expect(await transcript.locator('.entry').count()).toBe(2500)
    await transcript.getByRole('button', { name: 'Show earlier entries' }).click()
    await transcript.getByText('Count to 2,600.').waitFor()
    expect(await transcript.getByRole('button', { name: 'Show earlier entries' }).count()).toBe(0)
    const texts = await transcript.locator('.entry').allTextContents()
    expect(texts).toHaveLength(2601)
    expect(texts.slice(1, 4).map((t) => t.replace(/^.*·.*?(Step \d+)$/, '$1'))).toEqual(['Step 1', 'Step 2', 'Step 3'])

    // A report while the page is open: its entry comes after the rest, nothing is lost.
    await client.runs.report(companyId, woken.id, { runner_id: 'laptop-1', transcript: [{ text: 'Step 2601' }] })
    await transcript.getByText('Step 2601', { exact: true }).waitFor({ timeout: 30_000 })
    expect(await transcript.locator('.entry').count()).toBe(2602)

    // On a phone: the note and its button fit.
    const phone = await launchBrowser({ width: 390, height: 844 })
    try {
      const small = phone.context.pages()[0] ?? (await phone.context.newPage())
      small.setDefaultTimeout(15_000)
      await signIn(small, server.url, email, PASSWORD, 'Long Runs')
      await visit(small, `${server.url}/c/${companyId}/runs/${woken.id}`)
      const there = small.getByRole('region', { name: 'Transcript' })
      await there.getByText('602 earlier entries are not shown.').waitFor()
      await there.getByRole('button', { name: 'Show earlier entries' }).scrollIntoViewIfNeeded()
      expect(await narrowTexts(small)).toEqual([])
      await screenshot(small, 'run-long-transcript-phone')
    } finally {
      await phone.close()
    }
  })
})
