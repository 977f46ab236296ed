// The web app on a phone (390 by 844 pixels) in a real headless Chromium against a real server:
// the sidebar is a drawer that the menu button opens and that closes on navigation, on Escape
// and on a tap beside it; the board scrolls column by column; a long dialog fits the screen
// with its submit button in view. Screenshots at phone size: dashboard, drawer, board, task.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ShopfloorClient } from '../../src/client/api.ts'
import { type Browser, launchBrowser, narrowTexts, type RunningServer, screenshot, sharedServer, signIn, visit } from './harness.ts'

const PASSWORD = 'correct horse battery'
const PHONE = { width: 390, height: 844 }

let server: RunningServer
let browser: Browser
let page: Page
let companyId = ''
let taskKey = ''
/** The same person through the API, to check what the page did. */
let api: ShopfloorClient

async function shot(name: string) {
  await page.waitForFunction(() => document.getAnimations().length === 0)
  await screenshot(page, name)
}

/** The page fits the phone's width: nothing sticks out sideways. */
async function fitsWidth() {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width)
}

describe('the web app on a phone', () => {
  beforeAll(async () => {
    server = await sharedServer()
    const client = (api = new ShopfloorClient({ baseUrl: server.url }))
    const email = `phone-${Date.now().toString(36)}@example.test`
    await client.auth.register({ name: 'Ada Lovelace', email, password: PASSWORD })
    companyId = (await client.companies.create({ name: 'Acme Robotics', task_prefix: 'ACME', monthly_budget_cents: 50_000 })).id
    const grace = await client.agents.hire(companyId, { name: 'Grace', title: 'Writer' })
    const linus = await client.agents.hire(companyId, { name: 'Linus', title: 'Engineer', reports_to_id: grace.id })
    const tasks: [string, string, string | null][] = [
      ['Write the launch post', 'in_progress', grace.id],
      ['Fix the flaky build', 'todo', linus.id],
      ['Plan the Q3 roadmap', 'backlog', null],
      ['Review the pricing page', 'in_review', grace.id],
      ['Ship the onboarding emails', 'done', linus.id],
      ['Update the changelog', 'blocked', linus.id],
    ]
    for (const [title, status, assignee] of tasks) {
      const made = await client.tasks.create(companyId, { title, status: status as 'todo', assignee_agent_id: assignee, priority: title.startsWith('Fix') ? 'urgent' : 'medium' })
      taskKey ||= made.key
    }
    await client.comments.create(companyId, taskKey, { body: 'Keep it under 600 words, and link the demo video.' })
    // Runs for the runs list and the inbox: one succeeded, one failed, both on a runner called laptop-7.
    for (const [status, agent] of [['succeeded', grace.id], ['failed', linus.id]] as const) {
      const claimed = await client.runs.claim(companyId, { runner_id: 'laptop-7', agent_ids: [agent] })
      await client.runs.report(companyId, claimed!.run.id, { runner_id: 'laptop-7', status, cost_cents: 42, ...(status === 'failed' ? { error: 'The agent CLI exited with code 2.' } : {}) })
    }
    await client.me.updatePreferences({ tasks: { view: 'board' } })
    // A routine, a project and an API key, whose lists were squeezed a letter a line on a phone.
    await client.routines.create(companyId, { title: 'Plan the week', agent_id: grace.id, cron: '0 8 * * 1' })
    await client.projects.create(companyId, { name: 'Website relaunch', repository: 'https://github.com/acme/website.git' })
    await client.apiKeys.create({ name: 'Acme Robotics runner', company_id: companyId })

    browser = await launchBrowser(PHONE)
    page = browser.context.pages()[0] ?? (await browser.context.newPage())
    page.setDefaultTimeout(15_000)
    await signIn(page, server.url, email, PASSWORD, 'Acme Robotics')
  })

  afterAll(async () => {
    await browser?.close()
  })

  it('opens the sidebar as a drawer, and closes it on navigation, Escape and a tap beside it', async () => {
    await page.locator('[data-card="spend"]').waitFor()
    await fitsWidth()
    await shot('phone-dashboard')
    const menu = page.getByRole('button', { name: 'Open menu' })
    const nav = page.getByRole('navigation', { name: 'Main' })
    const tasksLink = nav.getByRole('link', { name: 'Tasks' })
    expect(await tasksLink.isVisible()).toBe(false) // shut: not on screen, not reachable by Tab

    await menu.click()
    await tasksLink.waitFor({ state: 'visible' })
    expect(await menu.getAttribute('aria-expanded')).toBe('true')
    await shot('phone-drawer')

    expect(await page.evaluate(() => document.activeElement?.closest('#sidebar') !== null)).toBe(true) // the focus went in

    await page.keyboard.press('Escape')
    await tasksLink.waitFor({ state: 'hidden' })
    expect(await menu.getAttribute('aria-expanded')).toBe('false')
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Open menu') // and came back

    await menu.click()
    await tasksLink.waitFor({ state: 'visible' })
    await page.mouse.click(PHONE.width - 20, PHONE.height / 2) // beside the drawer
    await tasksLink.waitFor({ state: 'hidden' })

    await menu.click()
    await tasksLink.click()
    await page.getByRole('heading', { name: 'Tasks' }).waitFor()
    await tasksLink.waitFor({ state: 'hidden' })
  })

  it('scrolls the board one column at a time', async () => {
    const board = page.locator('.board')
    await board.locator('[data-column="todo"] .task-card').first().waitFor()
    await fitsWidth()
    const layout = await board.evaluate((el: HTMLElement) => ({
      width: el.clientWidth,
      scrollWidth: el.scrollWidth,
      snap: getComputedStyle(el).scrollSnapType,
      columns: [...el.querySelectorAll<HTMLElement>('.column')].map((c) => ({ left: c.offsetLeft - el.offsetLeft, width: c.offsetWidth })),
    }))
    expect(layout.snap).toBe('x mandatory')
    // One column about the screen wide, the next one peeking in.
    expect(layout.columns[0].width).toBeGreaterThan(layout.width * 0.75)
    expect(layout.columns[0].width).toBeLessThan(layout.width)
    expect(layout.scrollWidth).toBeGreaterThan(layout.width * 3)
    await shot('phone-board')

    // A swipe of a bit more than half a column lands exactly on the next column.
    await board.evaluate((el, by) => el.scrollBy({ left: by, behavior: 'instant' }), Math.round(layout.columns[1].left * 0.6))
    await expect.poll(() => board.evaluate((el) => el.scrollLeft)).toBe(layout.columns[1].left)
  })

  it('moves a card with its Move to… list, where a finger cannot drag', async () => {
    await visit(page, `${server.url}/c/${companyId}/tasks`)
    const card = page.locator('[data-column="todo"] .task-card', { hasText: 'Fix the flaky build' })
    const key = (await card.getAttribute('data-task'))!
    await card.getByLabel(`Move ${key} to`).selectOption({ label: 'In progress' })
    await page.locator('[data-column="in_progress"] .task-card', { hasText: 'Fix the flaky build' }).waitFor()
    await expect.poll(async () => (await api.tasks.get(companyId, key)).status).toBe('in_progress')
    expect(page.url()).toMatch(/\/tasks$/) // choosing did not open the task
  })

  it('has a tab bar at the bottom for the main pages, More for the rest, and Sign out in the drawer', async () => {
    const tabs = page.getByRole('navigation', { name: 'Tabs' })
    await tabs.waitFor()
    const box = (await tabs.boundingBox())!
    expect(box.y + box.height).toBeGreaterThanOrEqual(PHONE.height - 1) // at the bottom of the screen
    expect((await tabs.getByRole('link').allInnerTexts()).map((text) => text.trim().split('\n')[0])).toEqual(['Home', 'Inbox', 'Tasks', 'Agents'])
    await tabs.getByRole('link', { name: 'Agents' }).click()
    await page.getByRole('heading', { name: 'Agents' }).waitFor()
    expect(await tabs.getByRole('link', { name: 'Agents' }).getAttribute('aria-current')).toBe('page')
    await tabs.getByRole('button', { name: 'More pages' }).click()
    const nav = page.getByRole('navigation', { name: 'Main' })
    await nav.getByRole('link', { name: 'Routines' }).waitFor({ state: 'visible' })
    expect(await nav.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true)
    await page.keyboard.press('Escape')
    // The company's name is not cut to a few letters any more.
    const picker = page.getByLabel('Company')
    expect(await picker.evaluate((el: HTMLSelectElement) => el.scrollWidth <= el.clientWidth + 1 || el.clientWidth > 150)).toBe(true)
    // On a wide screen there is no tab bar.
    await page.setViewportSize({ width: 1360, height: 860 })
    expect(await tabs.isVisible()).toBe(false)
    await page.setViewportSize(PHONE)
  })

  it('fits a long dialog on the screen with its submit button in view', async () => {
    await visit(page, `${server.url}/c/${companyId}/agents`)
    await page.getByRole('button', { name: 'Hire agent' }).click()
    const dialog = page.getByRole('dialog', { name: 'Hire an agent' })
    await dialog.waitFor()
    const box = (await dialog.boundingBox())!
    expect(box.x).toBeLessThanOrEqual(1)
    expect(box.width).toBeGreaterThanOrEqual(PHONE.width - 2)
    expect(box.y + box.height).toBeLessThanOrEqual(PHONE.height + 1)
    // The form is longer than the screen: it scrolls inside the dialog, and Hire stays in view.
    expect(await dialog.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true)
    const hire = dialog.getByRole('button', { name: 'Hire', exact: true })
    const button = (await hire.boundingBox())!
    expect(button.y).toBeGreaterThanOrEqual(0)
    expect(button.y + button.height).toBeLessThanOrEqual(PHONE.height)
    await hire.click({ trial: true }) // nothing covers it
    await shot('phone-dialog')
    await dialog.getByRole('button', { name: 'Cancel' }).click()
  })

  it('shows the task page in one column', async () => {
    await visit(page, `${server.url}/c/${companyId}/tasks/${taskKey}`)
    await page.getByText('Keep it under 600 words').waitFor()
    await fitsWidth()
    const [details, fields] = await Promise.all(['Details', 'Fields'].map((name) => page.getByRole('region', { name }).boundingBox()))
    expect(fields!.y).toBeGreaterThan(details!.y + details!.height - 1) // stacked, not side by side
    await shot('phone-task')
  })

  it('fits every company page into the phone width, with no text squeezed narrower than three letters', async () => {
    // Screenshots of each page at phone size (and at 1360 wide) go to a folder of their own, to look at after a change.
    const survey = process.env.PAGES_DIR ?? path.join(os.tmpdir(), 'shopfloor-phone-pages')
    fs.mkdirSync(survey, { recursive: true })
    const narrow: Record<string, string[]> = {}
    const pages = [['', 'Acme Robotics'], ['inbox', 'Inbox'], ['tasks', 'Tasks'], [`tasks/${taskKey}`, /Write the launch post/], ['agents', 'Agents'], ['runs', 'Runs'], ['approvals', 'Approvals'], ['goals', 'Goals'], ['projects', 'Projects'], ['routines', 'Routines'], ['runners', 'Runners'], ['costs', /Costs|Spend/i], ['activity', 'Activity'], ['settings', 'Company settings'], ['org', 'Org chart'], ['webhooks', 'Webhooks'], ['start', /Get Acme Robotics working/], ['/profile', 'Profile']] as const
    for (const viewport of [PHONE, { width: 1360, height: 860 }]) {
      await page.setViewportSize(viewport)
      for (const [where, heading] of pages) {
        const name = `${viewport.width}-${(where || 'dashboard').replace(/\W+/g, '-')}`
        await visit(page, where.startsWith('/') ? `${server.url}${where}` : `${server.url}/c/${companyId}/${where}`)
        await page.getByRole('heading', { name: heading }).first().waitFor()
        await expect.poll(() => page.getByText('Loading…').count()).toBe(0)
        if (where === 'org') await page.locator('.org-card').first().waitFor() // the chart's libraries come later
        if (where === 'tasks') await page.locator('.task-card').first().waitFor()
        expect(await page.evaluate(() => document.documentElement.scrollWidth), name).toBeLessThanOrEqual(viewport.width)
        // Tables squeezed a letter a line ("P l a n t h e w e e k", "Statu s") are lists of cards here.
        if (viewport === PHONE) narrow[name] = await narrowTexts(page)
        await page.screenshot({ path: path.join(survey, `${name}.png`), fullPage: true })
      }
    }
    await page.setViewportSize(PHONE)
    expect(Object.fromEntries(Object.entries(narrow).filter(([, found]) => found.length > 0))).toEqual({})
  })

  it('says the live updates are down in a word that fits the top bar', async () => {
    await page.route('**/events*', (route) => route.abort())
    try {
      await page.reload() // the open stream would stay open; a new page load meets the refusal
      await expect.poll(() => page.locator('[data-live]').getAttribute('data-live'), { timeout: 20_000 }).toBe('down')
      await page.getByText('Offline', { exact: true }).waitFor()
      await fitsWidth() // the sentence wrapped a letter a line and pushed Sign out off the screen
      await shot('phone-live-down')
    } finally {
      await page.unroute('**/events*')
    }
  })
})
