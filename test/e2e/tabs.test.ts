// Many tabs of the app in one browser share one live event stream: the tabs elect a leader that
// follows the stream and passes events to the others. With seven tabs open the seventh still loads
// (a browser allows six connections per site over HTTP/1.1), followers see changes live, and when
// the leader tab closes another takes over.
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ShopfloorClient } from '../../src/client/api.ts'
import { type Browser, launchBrowser, type RunningServer, signIn, sharedServer } from './harness.ts'

const PASSWORD = 'correct horse battery'

let server: RunningServer
let browser: Browser
let client: ShopfloorClient
let companyId = ''
/** Event-stream requests started and not yet ended, over every tab. */
const openStreams = new Set<unknown>()

describe('many tabs, one event stream', () => {
  beforeAll(async () => {
    server = await sharedServer()
    client = new ShopfloorClient({ baseUrl: server.url })
    const email = `tabs-${Date.now().toString(36)}@example.test`
    await client.auth.register({ name: 'Ada Lovelace', email, password: PASSWORD })
    companyId = (await client.companies.create({ name: 'Acme Robotics', task_prefix: 'ACME' })).id
    browser = await launchBrowser()
    const context = browser.context
    context.on('request', (request) => request.url().endsWith('/events') && openStreams.add(request))
    const ended = (request: { url(): string }) => openStreams.delete(request)
    context.on('requestfinished', ended)
    context.on('requestfailed', ended)
    const page = context.pages()[0] ?? (await context.newPage())
    await signIn(page, server.url, email, PASSWORD, 'Acme Robotics')
  })

  afterAll(async () => {
    await browser?.close()
  })

  it('loads a seventh tab, holds one stream, and shows changes live in every tab', async () => {
    const tabs: Page[] = [browser.context.pages()[0]]
    for (let i = 1; i < 7; i++) {
      const tab = await browser.context.newPage()
      tab.setDefaultTimeout(15_000)
      await tab.goto(`${server.url}/c/${companyId}/tasks`)
      await tab.getByRole('heading', { name: 'Tasks' }).waitFor()
      tabs.push(tab)
    }
    for (const tab of tabs) await expect.poll(() => tab.locator('[data-live]').getAttribute('data-live')).toBe('live')
    expect(openStreams.size).toBe(1)

    const made = await client.tasks.create(companyId, { title: 'Seen by every tab', status: 'todo' })
    for (const tab of tabs.slice(1)) await tab.getByText('Seen by every tab').waitFor()

    // The first tab led; once it closes another tab takes the stream over and changes still arrive.
    await tabs[0].close()
    await expect.poll(() => openStreams.size, { timeout: 15_000 }).toBe(1)
    await client.tasks.update(companyId, made.id, { title: 'Renamed after the leader left' })
    for (const tab of tabs.slice(1)) await tab.getByText('Renamed after the leader left').waitFor()
    for (const tab of tabs.slice(1)) expect(await tab.locator('[data-live]').getAttribute('data-live')).toBe('live')
  })
})
