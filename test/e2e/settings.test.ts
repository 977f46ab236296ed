// Settings said in words, in a real headless Chromium against a real server: revoking an invitation
// asks first, a revoked invitation is no longer said to be emailed, a locale that is no language tag
// is refused with an example (not the pattern it failed), and a time zone is picked from those that exist.
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ShopfloorClient } from '../../src/client/api.ts'
import { type Browser, launchBrowser, type RunningServer, screenshot, sharedServer, signIn, visit } from './harness.ts'

const PASSWORD = 'correct horse battery'

let server: RunningServer
let browser: Browser
let page: Page
let client: ShopfloorClient
let companyId = ''

describe('settings in words', () => {
  beforeAll(async () => {
    server = await sharedServer()
    client = new ShopfloorClient({ baseUrl: server.url })
    const email = `settings-${Date.now().toString(36)}@example.test`
    await client.auth.register({ name: 'Ada Lovelace', email, password: PASSWORD })
    companyId = (await client.companies.create({ name: 'Settled', task_prefix: 'SET' })).id
    browser = await launchBrowser()
    page = browser.context.pages()[0] ?? (await browser.context.newPage())
    page.setDefaultTimeout(15_000)
    await signIn(page, server.url, email, PASSWORD, 'Settled')
  })

  afterAll(async () => {
    await browser?.close()
  })

  it('no longer says a revoked invitation was emailed', async () => {
    await visit(page, `${server.url}/c/${companyId}/settings`)
    const people = page.getByRole('region', { name: 'People' })
    await people.getByLabel('Invite by email').fill('bob@example.test')
    await people.getByRole('button', { name: 'Send invitation' }).click()
    await people.getByRole('status').filter({ hasText: 'Invitation emailed to bob@example.test' }).waitFor()

    // Revoking asks first, as every destructive action does: dismissing the prompt keeps the invitation.
    const asked: string[] = []
    page.once('dialog', (dialog) => { asked.push(dialog.message()); void dialog.dismiss() })
    await people.getByRole('button', { name: 'Revoke the invitation of bob@example.test' }).click()
    await expect.poll(() => asked).toEqual(['Revoke the invitation of bob@example.test? Its link stops working.'])
    expect((await client.invitations.list(companyId)).map((i) => i.email)).toEqual(['bob@example.test'])
    await people.getByText('bob@example.test', { exact: true }).waitFor()

    page.once('dialog', (dialog) => void dialog.accept())
    await people.getByRole('button', { name: 'Revoke the invitation of bob@example.test' }).click()
    await people.getByRole('status').filter({ hasText: 'The invitation to bob@example.test was revoked' }).waitFor()
    expect(await people.getByText('Invitation emailed', { exact: false }).count()).toBe(0)
    await screenshot(page, 'invitation-revoked', { fullPage: true })
    expect(await client.invitations.list(companyId)).toEqual([])
  })

  it('refuses a locale that is no language tag with an example, not a pattern', async () => {
    await visit(page, `${server.url}/profile`)
    const preferences = page.getByRole('region', { name: 'Preferences' })
    await preferences.getByLabel('Locale').fill('en_US')
    await preferences.getByLabel('Locale').blur()
    const alert = preferences.getByRole('alert')
    await alert.getByText('Locale: use a language tag such as en-US.').waitFor()
    expect(await alert.textContent()).not.toContain('pattern')
    expect((await client.me.get()).preferences.locale).toBeUndefined()
    await screenshot(page, 'preferences-locale-refused')

    await preferences.getByLabel('Locale').fill('en-GB')
    await preferences.getByLabel('Locale').blur()
    await alert.waitFor({ state: 'detached' })
    await expect.poll(async () => (await client.me.get()).preferences.locale).toBe('en-GB')
  })

  it('picks the time zone from those that exist', async () => {
    const preferences = page.getByRole('region', { name: 'Preferences' })
    const zone = preferences.getByLabel('Timezone')
    // A list, so no zone can be typed that does not exist ("Mars/Olympus" was saved as typed).
    expect(await zone.evaluate((el) => el.tagName)).toBe('SELECT')
    const offered = await zone.locator('option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value))
    expect(offered).toContain('Europe/Paris')
    expect(offered).toContain('UTC')
    expect(offered).not.toContain('Mars/Olympus')
    await zone.selectOption('Asia/Tokyo')
    await expect.poll(async () => (await client.me.get()).preferences.timezone).toBe('Asia/Tokyo')

    // A zone saved before that does not exist is shown as such, and can be replaced.
    await client.me.updatePreferences({ timezone: 'Mars/Olympus' }).catch(() => null) // refused by newer servers
    if ((await client.me.get()).preferences.timezone === 'Mars/Olympus') {
      await page.reload()
      await expect.poll(() => zone.evaluate((el) => (el as HTMLSelectElement).selectedOptions[0]?.textContent)).toBe('Mars/Olympus (not a time zone)')
      await zone.selectOption('Europe/Paris')
      await expect.poll(async () => (await client.me.get()).preferences.timezone).toBe('Europe/Paris')
    }
    await screenshot(page, 'preferences-time-zone')
  })
})
