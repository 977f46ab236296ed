// Starting a company from a ready template or from an export file on the new-company page, from
// a template on an empty company's guided start, and Export in company settings, in Chromium
// against a real `shopfloor serve`.
import fs from 'node:fs'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ShopfloorClient } from '../../src/client/api.ts'
import { tempDir } from '../server-process.ts'
import { type Browser, launchBrowser, type RunningServer, screenshot, sharedServer, signIn, visit } from './harness.ts'

const PASSWORD = 'correct horse battery'
const email = `templates-${Date.now().toString(36)}@example.test`

let server: RunningServer
let browser: Browser
let page: Page
let client: ShopfloorClient
const files = tempDir('shopfloor-import-')

const openedCompany = () => page.url().split('/c/')[1].split('/')[0]

describe('companies from templates and files', () => {
  beforeAll(async () => {
    server = await sharedServer()
    client = new ShopfloorClient({ baseUrl: server.url })
    await client.auth.register({ name: 'Ada Lovelace', email, password: PASSWORD })
    browser = await launchBrowser()
    page = browser.context.pages()[0] ?? (await browser.context.newPage())
    page.setDefaultTimeout(15_000)
    await page.setViewportSize({ width: 1280, height: 800 })
    // No company yet: home is the new-company page.
    await signIn(page, server.url, email, PASSWORD, 'New company')
  })

  afterAll(async () => {
    await browser?.close()
  })

  it('makes a company with its agents from a template picked on the new-company page', async () => {
    const templates = page.getByRole('region', { name: 'Start from a template' })
    const studio = templates.getByRole('article', { name: 'Software Studio' })
    await studio.getByText('5 agents, 2 goals, 1 project, 2 routines, 3 tasks').waitFor()
    await studio.getByText(/Ada \(Chief Executive Officer\), Grace \(Chief Technology Officer\)/).waitFor()
    await templates.getByRole('article', { name: 'Content Agency' }).waitFor()
    await screenshot(page, 'new-company', { fullPage: true })

    await studio.getByRole('button', { name: 'Start from Software Studio' }).click()
    await page.getByRole('heading', { name: 'Get Software Studio working' }).waitFor()
    expect(page.url()).toMatch(/\/c\/[0-9a-f-]+\/start$/)
    // The team is hired already: the guided start goes on with the runner.
    await expect.poll(() => page.getByRole('listitem', { name: 'Hire the first agent' }).getAttribute('data-state')).toBe('done')
    // Its first tasks are there: the task step names the one an agent will work on, and that agent.
    await page.getByRole('listitem', { name: 'Give it a task' }).getByText('DEV-1 Set up the repository, CI and the deployment: watch Linus work on it there.').waitFor()
    const companyId = openedCompany()
    await visit(page, `${server.url}/c/${companyId}/agents`)
    for (const name of ['Ada', 'Grace', 'Linus', 'Margaret', 'Barbara']) await page.getByRole('link', { name, exact: true }).first().waitFor()
    const company = (await client.companies.list()).find((c) => c.id === companyId)!
    expect(company).toMatchObject({ name: 'Software Studio', role: 'owner' })
    expect((await client.agents.list(companyId)).map((a) => a.name).sort()).toEqual(['Ada', 'Barbara', 'Grace', 'Linus', 'Margaret'])
    expect(await client.routines.list(companyId)).toHaveLength(2)
  })

  it('exports a company from its settings and imports the file as a new company', async () => {
    const source = (await client.companies.list()).find((c) => c.name === 'Software Studio')!
    await visit(page, `${server.url}/c/${source.id}/settings`)
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('region', { name: 'Integrations and data' }).getByRole('button', { name: 'Export' }).click(),
    ])
    expect(download.suggestedFilename()).toMatch(/^dev-company-\d{4}-\d{2}-\d{2}\.json$/)
    const file = path.join(files, download.suggestedFilename())
    await download.saveAs(file)
    const document = JSON.parse(fs.readFileSync(file, 'utf8'))
    expect(document).toMatchObject({ format: 'shopfloor.company', version: 1, company: { name: 'Software Studio' } })
    expect(document.agents).toHaveLength(5)

    // Not JSON: said in words, and nothing is made.
    const bad = path.join(files, 'notes.json')
    fs.writeFileSync(bad, 'these are notes, not an export')
    await visit(page, `${server.url}/companies/new`)
    const section = page.getByRole('region', { name: 'Import from a file' })
    await section.getByLabel(/Company export file/).setInputFiles(bad)
    await section.getByRole('alert').getByText('notes.json is not a JSON file.', { exact: false }).waitFor()
    expect(await client.companies.list()).toHaveLength(1)

    await section.getByLabel(/Company export file/).setInputFiles(file)
    await page.getByRole('heading', { name: 'Get Software Studio working' }).waitFor()
    const imported = openedCompany()
    expect(imported).not.toBe(source.id)
    expect((await client.agents.list(imported)).map((a) => a.name).sort()).toEqual(['Ada', 'Barbara', 'Grace', 'Linus', 'Margaret'])
    expect((await client.tasks.list(imported)).map((t) => t.key).sort()).toEqual((await client.tasks.list(source.id)).map((t) => t.key).sort())
  })

  it("offers a template on an empty company's guided start", async () => {
    const empty = await client.companies.create({ name: 'Blank Slate', task_prefix: 'BLNK' })
    await visit(page, `${server.url}/c/${empty.id}/start`)
    const step = page.getByRole('listitem', { name: 'Name the company' })
    await step.getByRole('button', { name: 'Rather start from a template?' }).click()
    await step.getByRole('article', { name: 'Content Agency' }).getByRole('button', { name: 'Start from Content Agency' }).click()
    await page.getByRole('heading', { name: 'Get Content Agency working' }).waitFor()
    const made = openedCompany()
    expect(made).not.toBe(empty.id)
    expect((await client.agents.list(made)).length).toBe(4)
    // Once the company has an agent, the offer is gone.
    await expect.poll(() => page.getByRole('button', { name: 'Rather start from a template?' }).count()).toBe(0)
  })
})
