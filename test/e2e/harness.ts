// What the browser tests run against: the real server process (`shopfloor serve` on a free port,
// its embedded database in a temporary folder, serving the web app built for the tests) and a
// real headless Chromium driven by playwright-core.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { type Browser as PlaywrightBrowser, type BrowserContext, chromium, type Page } from 'playwright-core'
import { embeddedDataDir } from '../databases.ts'
import { ROOT, type ServerProcess, startServer as startProcess } from '../server-process.ts'
import { builtWebApp } from '../web-build.ts'
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

export type RunningServer = ServerProcess

/** The test worker's plain server (most browser test files need nothing else). */
export { sharedServer } from '../shared-server.ts'

/**
 * A server of a file's own, with settings of its own in `env` (mail, webhooks): `shopfloor serve`
 * serving the web app built for the tests (never web/dist), on the PostgreSQL database in `env`
 * when given, else on an embedded database in a temporary DATA_DIR.
 */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const database: Record<string, string> = env.DATABASE_URL ? {} : { DATA_DIR: embeddedDataDir() }
  return startProcess({ ENVIRONMENT: 'test', WEB_DIST_DIR: await builtWebApp(), ...database, ...env })
}

export interface Browser {
  context: BrowserContext
  close(): Promise<void>
}

let chromiumProcess: Promise<PlaywrightBrowser> | null = null

/**
 * A browser of its own for a test: a new context (its own cookies, storage and cache, as a new
 * profile would have) in the one headless Chromium of this test process, started on first use.
 * Starting Chromium costs about 3.5 s of CPU; each test file used to start its own.
 */
export async function launchBrowser(viewport = { width: 1360, height: 860 }): Promise<Browser> {
  chromiumProcess ??= chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS }).then((browser) => {
    browser.once('disconnected', () => (chromiumProcess = null))
    return browser
  })
  const context = await (await chromiumProcess).newContext({ viewport })
  return { context, close: () => context.close() }
}

/**
 * An agent command for the process adapter (a Node.js module's text) that prints each string as
 * a line and waits the seconds each number gives, so its transcript and usage grow while it runs.
 */
export function slowAgent(steps: (string | number)[]): string {
  const body = steps.map((step) => (typeof step === 'number' ? `await wait(${step})` : `console.log(${JSON.stringify(step)})`))
  return ['const wait = (s) => new Promise((r) => setTimeout(r, s * 1000))', ...body, ''].join('\n')
}

/**
 * Goes to `url` as a click on one of the app's links would: when `page` already shows the app on
 * that origin, its router follows a history entry pushed from the page and nothing is loaded
 * again; otherwise the page is loaded. A page load costs Chromium about 0.8 s of CPU, a
 * navigation inside the app 0.1-0.3 s.
 */
export async function visit(page: Page, url: string): Promise<void> {
  const target = new URL(url)
  // The router wraps history.pushState to follow pushes made by anyone (@tanstack/history).
  const inApp = page.url().startsWith(target.origin) && (await page.evaluate(() => history.pushState !== History.prototype.pushState))
  if (!inApp) {
    await page.goto(url)
    return
  }
  await page.evaluate((to) => {
    const key = Math.random().toString(36).slice(2)
    const index = ((history.state as { __TSR_index?: number } | null)?.__TSR_index ?? 0) + 1
    history.pushState({ __TSR_index: index, key, __TSR_key: key }, '', to)
  }, target.pathname + target.search + target.hash)
}

/** Signs in from the sign-in page as a person does, and waits for the heading of the page it lands on. */
export async function signIn(page: Page, baseUrl: string, email: string, password: string, landing: string | RegExp) {
  await page.goto(`${baseUrl}/sign-in`)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  // Signed in once the app has left the sign-in page (its own heading would match a loose `landing`).
  await page.waitForURL((url) => !url.pathname.startsWith('/sign-in'))
  await page.getByRole('heading', { name: landing }).waitFor()
}

/**
 * Where screenshots go: a temporary folder, so an ordinary test run leaves the tree clean;
 * `SCREENSHOTS_DIR=docs/screenshots` refreshes the ones the documentation shows.
 */
export const SCREENSHOTS = process.env.SCREENSHOTS_DIR
  ? path.resolve(ROOT, process.env.SCREENSHOTS_DIR)
  : path.join(os.tmpdir(), 'shopfloor-screenshots')

/** A screenshot of `page` as SCREENSHOTS/<name>.png; `fullPage` takes the whole page, not the viewport. */
export async function screenshot(page: Page, name: string, { fullPage = false } = {}): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage })
}

/**
 * Visible text squeezed narrower than three of its own characters: a table cell or header
 * breaking a word a letter a line ("Statu s", "P l a n"). Each element whose own text is three
 * characters or more is measured against the first three letters of its longest word in its
 * own font; hidden elements and
 * those kept for screen readers only (1 pixel wide) are left out. Answers what it found.
 */
export async function narrowTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const canvas = document.createElement('canvas').getContext('2d')!
    const found: string[] = []
    for (const el of document.querySelectorAll<HTMLElement>('body *')) {
      const own = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent ?? '').join('').trim()
      if (own.length < 3) continue
      const rect = el.getBoundingClientRect()
      if (rect.width <= 2 || rect.height === 0) continue
      const style = getComputedStyle(el)
      if (style.visibility === 'hidden' || style.display === 'none' || el.closest('[hidden], dialog:not([open])')) continue
      canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`
      // Three letters of its longest word, in its own font: a word squeezed a letter a line is far narrower.
      const longest = own.split(/\s+/).reduce((a, b) => (b.length > a.length ? b : a), '')
      const needed = canvas.measureText(longest.slice(0, 3)).width
      // The room for the text itself: a table cell's padding is not room for letters.
      const room = rect.width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - parseFloat(style.borderLeftWidth) - parseFloat(style.borderRightWidth)
      if (room + 1 < needed) found.push(`${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).split(' ')[0]}` : ''} "${own.slice(0, 40)}" ${Math.round(room)}px`)
    }
    return found
  })
}
