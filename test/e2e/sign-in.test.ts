// Signing in from the sign-in page of a fresh browser (no session stored, nothing cached), with
// the button and with Enter, lands on the company's dashboard without a reload.
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, it } from 'vitest'
import { ShopfloorClient } from '../../src/client/api.ts'
import { type Browser, launchBrowser, type RunningServer, sharedServer } from './harness.ts'

const PASSWORD = 'correct horse battery'
const email = `signin-${Date.now().toString(36)}@example.test`

let server: RunningServer

async function freshPage(): Promise<{ browser: Browser; page: Page }> {
  const browser = await launchBrowser()
  const page = browser.context.pages()[0] ?? (await browser.context.newPage())
  page.setDefaultTimeout(10_000)
  return { browser, page }
}

describe('signing in from a fresh browser', () => {
  beforeAll(async () => {
    server = await sharedServer()
    const client = new ShopfloorClient({ baseUrl: server.url })
    await client.auth.register({ name: 'Ada Lovelace', email, password: PASSWORD })
    await client.companies.create({ name: 'Acme Robotics', task_prefix: 'ACME' })
  })

  afterAll(async () => {
  })

  // A fresh browser opening the site shows the sign-in form at `/` itself; a link may lead to /sign-in.
  const cases = [
    ['/', 'button'],
    ['/', 'Enter'],
    ['/sign-in', 'button'],
    ['/sign-in', 'Enter'],
  ] as const
  for (const [start, how] of cases) {
    it(`opens the company after signing in at ${start} with ${how === 'button' ? 'the button' : 'Enter'}`, async () => {
      const { browser, page } = await freshPage()
      try {
        await page.goto(`${server.url}${start}`)
        await page.getByLabel('Email').fill(email)
        await page.getByLabel('Password').fill(PASSWORD)
        if (how === 'button') await page.getByRole('button', { name: 'Sign in' }).click()
        else await page.getByLabel('Password').press('Enter')
        await page.getByRole('heading', { name: 'Acme Robotics' }).waitFor()
      } finally {
        await browser.close()
      }
    })
  }
})
