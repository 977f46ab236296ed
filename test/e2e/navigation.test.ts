// Getting around: the command palette (Ctrl-K) jumps to a task by key or title, to an agent or a
// page, and creates a task; single-key shortcuts and their help overlay; the org chart re-parents
// an agent by drag and drop and says plainly why a cycle is refused.
import type { Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ShopfloorClient } from '../../src/client/api.ts'
import type { Agent } from '../../src/client/types.ts'
import { type Browser, launchBrowser, type RunningServer, screenshot, sharedServer, signIn, visit } from './harness.ts'

const PASSWORD = 'correct horse battery'

let server: RunningServer
let browser: Browser
let page: Page
let client: ShopfloorClient
let companyId = ''
let grace: Agent
let linus: Agent
let ken: Agent

const shot = (name: string) => screenshot(page, name)

/** Drags one org-chart card onto another with the mouse, in small steps as a person would. */
async function dropOnto(from: Locator, to: Locator) {
  const a = (await from.boundingBox())!
  const b = (await to.boundingBox())!
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2)
  await page.mouse.down()
  await page.mouse.move(a.x + a.width / 2 + 10, a.y + a.height / 2 + 10, { steps: 4 })
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 12 })
  await page.mouse.up()
}

describe('getting around', () => {
  beforeAll(async () => {
    server = await sharedServer()
    client = new ShopfloorClient({ baseUrl: server.url })
    const email = `nav-${Date.now().toString(36)}@example.test`
    await client.auth.register({ name: 'Ada Lovelace', email, password: PASSWORD })
    companyId = (await client.companies.create({ name: 'Acme Robotics', task_prefix: 'ACME' })).id
    grace = await client.agents.hire(companyId, { name: 'Grace', title: 'Chief engineer' })
    linus = await client.agents.hire(companyId, { name: 'Linus', title: 'Kernel hacker', reports_to_id: grace.id })
    ken = await client.agents.hire(companyId, { name: 'Ken', title: 'Tools', reports_to_id: linus.id })
    await client.agents.hire(companyId, { name: 'Margaret', title: 'Flight software', reports_to_id: grace.id })
    await client.tasks.create(companyId, { title: 'Write the launch post', status: 'todo' })
    await client.tasks.create(companyId, { title: 'Fix the flaky build', status: 'todo' })
    browser = await launchBrowser()
    page = browser.context.pages()[0] ?? (await browser.context.newPage())
    page.setDefaultTimeout(10_000)
    await signIn(page, server.url, email, PASSWORD, 'Acme Robotics')
  })

  afterAll(async () => {
    await browser?.close()
  })

  /** Types into the open palette, waits until the best match is the one expected, and picks it. */
  async function chosen(text: string, option: RegExp) {
    await page.getByRole('dialog', { name: 'Go to…' }).getByRole('combobox').waitFor()
    await page.keyboard.type(text)
    await page.getByRole('dialog', { name: 'Go to…' }).getByRole('option', { selected: true, name: option }).waitFor()
    await page.keyboard.press('Enter')
  }

  it('jumps to a task by key and by title, to an agent and a page, and creates a task from the palette', async () => {
    const palette = page.getByRole('dialog', { name: 'Go to…' })
    await page.keyboard.press('Control+k')
    await palette.getByRole('combobox').waitFor()
    await page.keyboard.type('launch')
    await palette.getByRole('option', { selected: true, name: /^ACME-1/ }).waitFor()
    await shot('palette')
    await page.keyboard.press('Escape')
    await page.keyboard.press('Control+k')
    await chosen('ACME-2', /^ACME-2 Fix the flaky build/)
    await page.getByRole('heading', { name: /Fix the flaky build/ }).waitFor()

    await page.keyboard.press('Control+k')
    await chosen('launch post', /^ACME-1 Write the launch post/)
    await page.getByRole('heading', { name: /Write the launch post/ }).waitFor()

    await page.keyboard.press('Control+k')
    await chosen('Margaret', /^Margaret/)
    await page.getByRole('heading', { name: /Margaret/ }).waitFor()

    await page.keyboard.press('Control+k')
    await chosen('Costs', /^Costs/)
    await page.getByRole('heading', { name: 'Costs' }).waitFor()

    await page.keyboard.press('Control+k')
    await page.keyboard.type('Order the stickers')
    await palette.getByRole('option', { name: /Create task “Order the stickers”/ }).click()
    const dialog = page.getByRole('dialog', { name: 'New task' })
    expect(await dialog.getByLabel('Title').inputValue()).toBe('Order the stickers')
    await dialog.getByRole('button', { name: 'Create task' }).click()
    await page.getByRole('heading', { name: /Order the stickers/ }).waitFor()
    expect((await client.tasks.list(companyId, { q: 'stickers' })).map((t) => t.key)).toEqual(['ACME-3'])
  })

  it('acts from the palette: hires, pauses and resumes an agent, a new routine, and pages beyond the sidebar', async () => {
    const palette = page.getByRole('dialog', { name: 'Go to…' })
    await page.keyboard.press('Control+k')
    await chosen('hire', /^Hire an agent/)
    await page.getByRole('dialog', { name: 'Hire an agent' }).getByRole('button', { name: 'Cancel' }).click()
    expect(page.url()).toMatch(/\/agents$/) // the address does not keep the dialog open

    await page.keyboard.press('Control+k')
    await chosen('pause margaret', /^Pause Margaret/)
    await palette.waitFor({ state: 'detached' })
    await expect.poll(async () => (await client.agents.list(companyId)).find((a) => a.name === 'Margaret')?.status).toBe('paused')
    await page.keyboard.press('Control+k')
    await chosen('resume margaret', /^Resume Margaret/)
    await expect.poll(async () => (await client.agents.list(companyId)).find((a) => a.name === 'Margaret')?.status).toBe('idle')

    await page.keyboard.press('Control+k')
    await chosen('new routine', /^New routine/)
    await page.getByRole('dialog', { name: /New routine/ }).getByRole('button', { name: 'Cancel' }).click()

    await page.keyboard.press('Control+k')
    await chosen('webhooks', /^Webhooks/)
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor()
    await page.keyboard.press('Control+k')
    await chosen('profile', /^Profile/)
    await page.getByRole('heading', { name: 'API keys' }).waitFor()
    await visit(page, `${server.url}/c/${companyId}`)
    await page.getByRole('heading', { name: 'Acme Robotics' }).waitFor()
  })

  it('opens pages with g-shortcuts and lists the shortcuts on ?', async () => {
    await page.locator('body').click({ position: { x: 5, y: 500 } })
    await page.keyboard.press('g')
    await page.keyboard.press('t')
    await page.getByRole('heading', { name: 'Tasks' }).waitFor()
    await page.keyboard.press('g')
    await page.keyboard.press('a')
    await page.getByRole('heading', { name: 'Agents' }).waitFor()
    await page.keyboard.press('?')
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' })
    await help.getByText('Open Org chart').waitFor()
    await page.keyboard.press('Escape')
    await help.waitFor({ state: 'detached' })
    // Typing in a field is typing, not a shortcut.
    await visit(page, `${server.url}/c/${companyId}/tasks`)
    await page.getByLabel('Search').fill('gt?')
    expect(await page.getByRole('dialog').count()).toBe(0)
  })

  it('re-parents an agent by drag and drop, and explains a refused cycle', async () => {
    await visit(page, `${server.url}/c/${companyId}/org`)
    const card = (name: string) => page.locator(`[data-agent-node="${name}"]`)
    await card('Ken').waitFor()
    await page.locator(`.react-flow__edge[data-id="${linus.id}->${ken.id}"]`).waitFor({ state: 'attached' })
    await shot('org-chart-drag')

    // Ken moves from Linus to Margaret.
    await dropOnto(card('Ken'), card('Margaret'))
    await page.getByRole('status').filter({ hasText: 'Ken now reports to Margaret.' }).waitFor()
    await expect.poll(async () => (await client.agents.get(companyId, ken.id)).reports_to_id).toBe((await client.agents.list(companyId)).find((a) => a.name === 'Margaret')!.id)

    // Grace onto Linus, who reports to Grace: refused, in words, and nothing changes.
    await dropOnto(card('Grace'), card('Linus'))
    await page.getByRole('alert').filter({ hasText: 'Grace cannot report to Linus: Linus already reports to Grace' }).waitFor()
    expect((await client.agents.get(companyId, grace.id)).reports_to_id).toBeNull()
    await shot('org-chart-cycle')
  })

  it('shows the overview map only for a chart too large to take in at a glance', async () => {
    await visit(page, `${server.url}/c/${companyId}/org`)
    await page.locator('[data-agent-node="Ken"]').waitFor()
    // A few agents fit on the screen: no map over the cards' corner.
    expect(await page.locator('.react-flow__minimap').count()).toBe(0)
    const have = (await client.agents.list(companyId)).length
    for (let i = have; i <= 12; i++) await client.agents.hire(companyId, { name: `Extra ${i}` })
    await visit(page, `${server.url}/c/${companyId}/org`)
    await page.locator('.react-flow__minimap').waitFor()
  })
})
