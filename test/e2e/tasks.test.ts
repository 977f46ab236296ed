// The task page and the board held to their rules in a real headless Chromium against a real
// server: a title of one long word (or a long URL) stays inside its box at desktop and phone
// widths, a comment is deleted only once confirmed, a card moved from the keyboard keeps the focus
// in its new column (and in its old one, with the error shown, when the server refuses the move),
// and on the timeline an assignment comes before the run it queued, and a run queued before a
// comment but started after it comes after it (live and on a fresh load alike).
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ShopfloorClient } from '../../src/client/api.ts'
import { type Browser, launchBrowser, narrowTexts, type RunningServer, screenshot, sharedServer, signIn, visit } from './harness.ts'

const PASSWORD = 'correct horse battery'
const LONG_WORD = 'Supercalifragilistic'.repeat(10) // 200 letters, no space
const LONG_URL = `https://example.com/${'deeply/nested/'.repeat(12)}release-notes-for-the-spring-launch.html`

let server: RunningServer
let browser: Browser
let page: Page
let client: ShopfloorClient
let companyId = ''

/**
 * The elements matching `selector` (at least one must show) that run out of their own box or out
 * of the one around them (`within`: the page's main column, or a board column), described for the
 * failure message; none when every one fits.
 */
async function overflowing(selector: string, within = 'main'): Promise<string[]> {
  await page.locator(selector).filter({ visible: true }).first().waitFor() // on a phone the board's other columns are out of view
  return page.evaluate(([selector, within]) => {
    return [...document.querySelectorAll<HTMLElement>(selector)].flatMap((el) => {
      const box = el.getBoundingClientRect()
      const right = Math.min(el.closest(within)!.getBoundingClientRect().right, el.closest(within) === document.querySelector('main') ? document.documentElement.clientWidth : Infinity)
      return el.scrollWidth > el.clientWidth + 1 || box.right > right + 1
        ? [`${selector}: ${box.width}px wide, ${el.scrollWidth}px of content, ending at ${box.right} of ${right}`]
        : []
    })
  }, [selector, within] as const)
}

describe('the task page and the board', () => {
  beforeAll(async () => {
    server = await sharedServer()
    client = new ShopfloorClient({ baseUrl: server.url })
    const email = `tasks-${Date.now().toString(36)}@example.test`
    await client.auth.register({ name: 'Ada Lovelace', email, password: PASSWORD })
    companyId = (await client.companies.create({ name: 'Longwords', task_prefix: 'LONG' })).id
    browser = await launchBrowser()
    page = browser.context.pages()[0] ?? (await browser.context.newPage())
    page.setDefaultTimeout(15_000)
    await signIn(page, server.url, email, PASSWORD, 'Longwords')
  })

  afterAll(async () => {
    await browser?.close()
  })

  it('keeps a title of one long word or a long URL inside its box, on a desktop and on a phone', async () => {
    const word = await client.tasks.create(companyId, { title: LONG_WORD, status: 'todo' })
    await client.tasks.create(companyId, { title: LONG_URL, status: 'in_progress' })
    await client.tasks.create(companyId, { title: `${LONG_WORD} too`, parent_id: word.id })
    for (const viewport of [{ width: 1360, height: 860 }, { width: 390, height: 844 }]) {
      await page.setViewportSize(viewport)
      const where = viewport.width < 760 ? 'phone' : 'desktop'

      await page.goto(`${server.url}/c/${companyId}/tasks/${word.key}`) // loaded at this width
      await page.getByRole('heading', { level: 1, name: LONG_WORD }).waitFor()
      expect(await overflowing('h1')).toEqual([])
      expect(await overflowing('section[aria-label="Subtasks"] li')).toEqual([])
      await screenshot(page, `long-title-task-${where}`)

      await visit(page, `${server.url}/c/${companyId}/tasks`)
      await page.getByRole('group', { name: 'View' }).getByRole('button', { name: 'List' }).click()
      await page.getByRole('cell', { name: LONG_URL }).waitFor()
      expect(await overflowing('main td')).toEqual([])
      expect(await overflowing('.table-wrap')).toEqual([])

      await page.getByRole('group', { name: 'View' }).getByRole('button', { name: 'Board' }).click()
      await page.locator('.task-card', { hasText: LONG_URL }).waitFor()
      expect(await overflowing('.task-card', '.column')).toEqual([])
      await screenshot(page, `long-title-board-${where}`)
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width)
    }
    await page.setViewportSize({ width: 1360, height: 860 })
  })

  it('deletes a comment only once the deletion is confirmed', async () => {
    const task = await client.tasks.create(companyId, { title: 'Answer the reviewers' })
    await client.comments.create(companyId, task.id, { body: 'The second chapter needs a diagram.' })
    await visit(page, `${server.url}/c/${companyId}/tasks/${task.key}`)
    const timeline = page.getByRole('region', { name: 'Timeline' })
    await timeline.getByText('The second chapter needs a diagram.').waitFor()

    const asked: string[] = []
    page.once('dialog', (dialog) => { asked.push(dialog.message()); void dialog.dismiss() })
    await timeline.getByRole('button', { name: 'Delete comment' }).click()
    await expect.poll(() => asked).toEqual(['Delete this comment?'])
    await page.waitForTimeout(500) // a deletion sent anyway would be under way by now
    expect(await client.comments.list(companyId, task.id)).toHaveLength(1)
    await timeline.getByText('The second chapter needs a diagram.').waitFor()

    page.once('dialog', (dialog) => void dialog.accept())
    await timeline.getByRole('button', { name: 'Delete comment' }).click()
    await timeline.getByText('The second chapter needs a diagram.').waitFor({ state: 'detached' })
    expect(await client.comments.list(companyId, task.id)).toEqual([])
  })

  /** Opens the board with the focus on a task's card: what has the focus, and the card's column. */
  async function focusOnBoard(key: string) {
    await visit(page, `${server.url}/c/${companyId}/tasks`)
    await page.getByRole('group', { name: 'View' }).getByRole('button', { name: 'Board' }).click()
    const card = page.locator(`.task-card[data-task="${key}"]`)
    await card.focus()
    return {
      focused: () => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.task ?? document.activeElement?.tagName),
      column: () => card.evaluate((el) => el.closest('[data-column]')?.getAttribute('data-column')),
    }
  }

  it('keeps the focus on a card moved from the keyboard, so it can be moved on', async () => {
    const task = await client.tasks.create(companyId, { title: 'Proofread the index', status: 'backlog' })
    const { focused, column } = await focusOnBoard(task.key)
    // The move to In progress reaches the server late: a move made meanwhile must still land after it.
    const route = `**/api/companies/${companyId}/tasks/${task.id}`
    await page.route(route, async (request) => {
      if (request.request().method() === 'PATCH' && request.request().postDataJSON()?.status === 'in_progress') await new Promise((r) => setTimeout(r, 1_000))
      await request.fallback()
    })

    await page.keyboard.press('Shift+ArrowRight')
    await expect.poll(column).toBe('todo')
    await expect.poll(focused).toBe(task.key)
    await page.keyboard.press('Shift+ArrowRight')
    await expect.poll(column).toBe('in_progress')
    await expect.poll(focused).toBe(task.key)
    // The first move's live event comes in while the second is on its way: the card stays where it was put.
    await page.waitForTimeout(700)
    expect(await column()).toBe('in_progress')
    expect(await focused()).toBe(task.key)
    await screenshot(page, 'board-keyboard-move')
    await page.keyboard.press('Shift+ArrowLeft')
    await expect.poll(column).toBe('todo')
    await expect.poll(focused).toBe(task.key)
    await expect.poll(async () => (await client.tasks.get(companyId, task.id)).status).toBe('todo')
    await page.waitForTimeout(1_500) // the late move to In progress, had it been sent beside the other, has landed by now
    expect((await client.tasks.get(companyId, task.id)).status).toBe('todo')
    await expect.poll(column).toBe('todo')
    await page.unroute(route)
  })

  it('keeps the focus on a card whose keyboard move the server refuses, back in its column, and says why', async () => {
    const task = await client.tasks.create(companyId, { title: 'Check the footnotes', status: 'todo' })
    const { focused, column } = await focusOnBoard(task.key)

    // The API refuses this one move (as it would for a right taken away meanwhile).
    const route = `**/api/companies/${companyId}/tasks/${task.id}`
    await page.route(route, (request) => request.request().method() === 'PATCH'
      ? request.fulfill({ status: 403, contentType: 'application/json', body: JSON.stringify({ error: { code: 'FORBIDDEN', message: 'You may not move this task', details: {} } }) })
      : request.fallback())
    await page.keyboard.press('Shift+ArrowRight')
    await page.getByRole('alert').getByText('You may not move this task', { exact: false }).waitFor()
    await expect.poll(column).toBe('todo')
    await expect.poll(focused).toBe(task.key)
    await screenshot(page, 'board-keyboard-move-refused')
    await page.unroute(route)

    // Still focused, so the next try goes from the keyboard at once.
    await page.keyboard.press('Shift+ArrowRight')
    await expect.poll(column).toBe('in_progress')
    await expect.poll(focused).toBe(task.key)
    await expect.poll(async () => (await client.tasks.get(companyId, task.id)).status).toBe('in_progress')
    expect(await page.getByRole('alert').count()).toBe(0)
  })

  it('shows an assignment on the timeline before the run it queued', async () => {
    const grace = await client.agents.hire(companyId, { name: 'Grace', title: 'Writer' })
    const task = await client.tasks.create(companyId, { title: 'Write the launch post', status: 'todo' })
    await client.tasks.update(companyId, task.id, { assignee_agent_id: grace.id }) // queues Grace's run
    expect((await client.runs.list(companyId, { task_id: task.id })).map((r) => r.trigger)).toEqual(['assignment'])

    await visit(page, `${server.url}/c/${companyId}/tasks/${task.key}`)
    const timeline = page.getByRole('region', { name: 'Timeline' })
    await timeline.getByRole('listitem', { name: 'Run of Grace' }).waitFor()
    await timeline.getByRole('listitem', { name: 'Ada Lovelace assigned it to Grace' }).waitFor()
    const order = await timeline.locator('ol.timeline > li').evaluateAll((items) => items.map((li) => li.getAttribute('aria-label')))
    expect(order).toEqual(['Ada Lovelace assigned it to Grace', 'Run of Grace'])
    await screenshot(page, 'timeline-assignment-then-run')
  })

  it('puts a run where it started: after a comment made while it waited, before its reply, live and on a fresh load', async () => {
    const hopper = await client.agents.hire(companyId, { name: 'Hopper', title: 'Editor' })
    const task = await client.tasks.create(companyId, { title: 'Edit the spring issue', status: 'todo' })
    await client.tasks.update(companyId, task.id, { assignee_agent_id: hopper.id }) // queues Hopper's run
    await client.comments.create(companyId, task.id, { body: 'Use the new template, please.' })

    await visit(page, `${server.url}/c/${companyId}/tasks/${task.key}`)
    const timeline = page.getByRole('region', { name: 'Timeline' })
    await timeline.getByText('Use the new template, please.').waitFor()
    /** Each timeline entry in the order shown: a change or run by its label, a comment by its text. */
    const order = () => timeline.locator('ol.timeline > li').evaluateAll((items) =>
      items.map((li) => li.getAttribute('aria-label') ?? li.querySelector('.body')?.textContent?.trim() ?? '?'))
    // Queued, not started: it shows where it was queued, after its assignment, before the comment.
    await expect.poll(order).toEqual(['Ada Lovelace assigned it to Hopper', 'Run of Hopper', 'Use the new template, please.'])

    // The list of runs comes back late (held 1 s), after the run's own answer and the comments: the
    // run's summary must not show beside its reply meanwhile.
    const runsList = new RegExp(`/api/companies/${companyId}/runs\\?`)
    await page.route(runsList, async (request) => {
      await new Promise((r) => setTimeout(r, 1_000))
      await request.fallback()
    })
    await page.evaluate(() => {
      const seen = window as unknown as { mostReplies: number }
      seen.mostReplies = 0
      new MutationObserver(() => {
        const shown = [...document.querySelectorAll('[aria-label="Timeline"] .body')].filter((e) => e.textContent?.includes('Edited with the new template.'))
        seen.mostReplies = Math.max(seen.mostReplies, shown.length)
      }).observe(document.body, { subtree: true, childList: true, characterData: true })
    })
    // A runner takes it now (after the comment), replies on the task and finishes: all arriving live.
    const claimed = await client.runs.claim(companyId, { runner_id: 'desk-9', agent_ids: [hopper.id] })
    await client.comments.create(companyId, task.id, { body: 'Edited with the new template.', run_id: claimed!.run.id })
    await client.runs.report(companyId, claimed!.run.id, { runner_id: 'desk-9', status: 'succeeded', summary: 'Edited with the new template.' })
    await timeline.getByText('Edited with the new template.').waitFor()
    const expected = ['Ada Lovelace assigned it to Hopper', 'Use the new template, please.', 'Run of Hopper', 'Hopper moved it from Todo to In progress', 'Edited with the new template.']
    await expect.poll(order).toEqual(expected)
    expect(await page.evaluate(() => (window as unknown as { mostReplies: number }).mostReplies)).toBe(1)
    await page.unroute(runsList)
    // The run's line says when it started, and the time on hover says both.
    const when = timeline.getByRole('listitem', { name: 'Run of Hopper' }).locator('[title^="Started "]')
    expect(await when.getAttribute('title')).toMatch(/^Started .+ \(queued .+\)$/)

    await page.reload()
    await timeline.getByText('Edited with the new template.').first().waitFor()
    await expect.poll(order).toEqual(expected)
    await screenshot(page, 'timeline-true-order', { fullPage: true })
    await page.setViewportSize({ width: 390, height: 844 })
    await page.reload() // laid out at this width from the start
    await timeline.getByText('Edited with the new template.').first().waitFor()
    await expect.poll(order).toEqual(expected)
    expect(await narrowTexts(page)).toEqual([])
    await screenshot(page, 'timeline-true-order-phone', { fullPage: true })
    await page.setViewportSize({ width: 1360, height: 860 })
  })
})
