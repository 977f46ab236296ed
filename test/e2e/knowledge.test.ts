// Company knowledge in the browser: Markdown an agent writes is rendered and nothing in it runs
// (a hostile `<img onerror>`, a `javascript:` link, a `<script>`), in a comment, a run summary
// and a document; the Documents page lists, searches, edits with a preview and shows versions;
// the agent page shows its skills (attach, detach) and its memory. A real server process, a
// real runner-less claim for the agent's run credential, and a real headless Chromium.
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ShopfloorClient } from '../../src/client/api.ts'
import { type Browser, launchBrowser, type RunningServer, screenshot, sharedServer, signIn, visit } from './harness.ts'

const PASSWORD = 'correct horse battery'
const HOSTILE = [
  'Done: **tests pass**.',
  '',
  '<img src="x" onerror="window.__pwned = \'img\'">',
  '',
  '[Open the report](javascript:window.__pwned=\'link\')',
  '',
  '<script>window.__pwned = \'script\'</script>',
  '',
  '![chart](javascript:window.__pwned=\'image\')',
].join('\n')

let server: RunningServer
let browser: Browser
let page: Page
let client: ShopfloorClient
let companyId = ''
let agentId = ''
let taskKey = ''
let hostileDocId = ''

describe('company knowledge in the web app', () => {
  beforeAll(async () => {
    server = await sharedServer()
    client = new ShopfloorClient({ baseUrl: server.url })
    const email = `knowledge-${Date.now().toString(36)}@example.test`
    await client.auth.register({ name: 'Ada Lovelace', email, password: PASSWORD })
    companyId = (await client.companies.create({ name: 'Knowledge Works', task_prefix: 'KNO' })).id
    const review = await client.skills.create(companyId, { name: 'code-review', description: 'Review a change before it is handed in', body: '# Review\nRead it all.' })
    await client.skills.create(companyId, { name: 'writing-a-plan', description: 'Plan work of more than a few steps', body: '# Plan' })
    const agent = await client.agents.hire(companyId, { name: 'Grace', title: 'Engineer', adapter: 'process', skills: [review.id] })
    agentId = agent.id
    const task = await client.tasks.create(companyId, { title: 'Fix the build', assignee_agent_id: agent.id })
    taskKey = task.key
    // The agent writes through its own run credential: a comment, a document and its memory.
    const claimed = (await client.runs.claim(companyId, { runner_id: 'by-hand', agent_ids: [agent.id] }))!
    const asAgent = new ShopfloorClient({ baseUrl: server.url, credentials: { apiKey: claimed.run_token! } })
    await asAgent.comments.create(companyId, task.id, { body: HOSTILE })
    hostileDocId = (await asAgent.documents.create(companyId, { title: 'Build notes', body: HOSTILE, tags: ['build'] })).id
    await asAgent.documents.create(companyId, { title: 'Memory of Grace', agent_id: agent.id, body: '- The build needs **Node 20**.\n' })
    await client.runs.report(companyId, claimed.run.id, { runner_id: 'by-hand', status: 'succeeded', summary: HOSTILE })
    await client.documents.create(companyId, { title: 'How we work', body: '# How we work\nSmall changes, *tested*.', tags: ['handbook'], pinned: true })

    browser = await launchBrowser()
    page = browser.context.pages()[0] ?? (await browser.context.newPage())
    page.setDefaultTimeout(15_000)
    // Anything that runs sets window.__pwned; a dialog would be an alert() that ran.
    page.on('dialog', (dialog) => void dialog.dismiss())
    await signIn(page, server.url, email, PASSWORD, 'Knowledge Works')
  })

  afterAll(async () => {
    await browser?.close()
  })

  /** Nothing the hostile text holds ran, and no element it names exists inside `root`. */
  async function expectInert(root: string) {
    const box = page.locator(root).first()
    await box.locator('strong', { hasText: 'tests pass' }).waitFor()
    expect(await box.locator('img, script, iframe').count()).toBe(0)
    // The raw HTML shows as the text it is.
    expect(await box.textContent()).toContain('<img src="x" onerror=')
    const link = box.getByText('Open the report')
    const href = await link.getAttribute('href')
    expect(href ?? '').not.toMatch(/javascript/i)
    await link.click()
    const image = box.getByText('chart')
    expect((await image.getAttribute('href')) ?? '').not.toMatch(/javascript/i)
    await image.click()
    expect(await page.evaluate(() => (window as any).__pwned)).toBeUndefined()
  }

  it('renders an agent’s comment and run summary as Markdown in which no HTML runs', async () => {
    await visit(page, `${server.url}/c/${companyId}/tasks/${taskKey}`)
    await expectInert('.comment .markdown')
    await visit(page, `${server.url}/c/${companyId}/runs`)
    const [run] = await client.runs.list(companyId, { agent_id: agentId })
    await visit(page, `${server.url}/c/${companyId}/runs/${run.id}`)
    await expectInert('section.panel:has(h2:text("Summary")) .markdown')
  })

  it('the Documents page lists, searches, renders safely, edits with a preview and keeps versions', async () => {
    await visit(page, `${server.url}/c/${companyId}/documents`)
    await page.getByRole('heading', { name: 'Documents', level: 1 }).waitFor()
    const list = page.getByRole('region', { name: 'Documents list' })
    await list.getByText('How we work').waitFor()
    await list.getByText('Build notes').waitFor()
    await screenshot(page, 'documents-1360')

    await page.getByLabel('Search documents').fill('small')
    await expect.poll(async () => list.locator('li').count()).toBe(1)
    await list.getByRole('button', { name: /How we work/ }).click()
    const doc = page.getByRole('region', { name: 'Document' })
    await doc.getByRole('heading', { name: 'How we work', level: 2 }).waitFor()
    expect(await doc.locator('.markdown em').textContent()).toBe('tested')

    await doc.getByRole('button', { name: 'Edit' }).click()
    await doc.getByLabel('Text').fill('# How we work\nSmall changes, **reviewed**.')
    await doc.getByRole('tab', { name: 'Preview' }).click()
    expect(await doc.getByLabel('Preview').locator('strong').textContent()).toBe('reviewed')
    await screenshot(page, 'documents-editor-1360')
    await doc.getByRole('button', { name: 'Save' }).click()
    await doc.getByText(/^Version 2,/).waitFor()
    await doc.getByRole('button', { name: 'Versions' }).click()
    const versions = doc.getByRole('region', { name: 'Versions' })
    await versions.getByText('Version 1').waitFor()
    expect(await versions.textContent()).toContain('by Ada Lovelace')
    expect((await client.documents.get(companyId, (await client.documents.list(companyId, { q: 'reviewed' }))[0].id)).version).toBe(2)

    await page.getByLabel('Search documents').fill('')
    await visit(page, `${server.url}/c/${companyId}/documents?doc=${hostileDocId}`)
    await expectInert('[aria-label="Document"] .doc-body')
  })

  it('the agent page shows its skills (attach, detach) and its memory', async () => {
    await visit(page, `${server.url}/c/${companyId}/agents/${agentId}`)
    const skills = page.getByRole('region', { name: 'Skills' })
    await skills.getByText('code-review').waitFor()
    await skills.getByLabel('Skill to attach').selectOption({ label: 'writing-a-plan' })
    await skills.getByRole('button', { name: 'Attach' }).click()
    await skills.getByText('writing-a-plan').waitFor()
    await expect.poll(async () => (await client.agents.get(companyId, agentId)).skills.length).toBe(2)
    await skills.getByRole('button', { name: 'Detach code-review' }).click()
    await expect.poll(async () => (await client.agents.get(companyId, agentId)).skills.length).toBe(1)
    const memory = page.getByRole('region', { name: 'Memory' })
    expect(await memory.locator('strong').first().textContent()).toBe('Node 20')
    await screenshot(page, 'agent-knowledge-1360', { fullPage: true })
  })

  it('the task page starts the agent afresh: a run whose runner gets a new session', async () => {
    await visit(page, `${server.url}/c/${companyId}/tasks/${taskKey}`)
    await page.getByRole('button', { name: 'Start afresh' }).click()
    await page.getByRole('button', { name: 'New session queued' }).waitFor()
    await screenshot(page, 'task-start-afresh-1360')
    const claimed = (await client.runs.claim(companyId, { runner_id: 'by-hand', agent_ids: [agentId] }))!
    expect(claimed.task?.key).toBe(taskKey)
    expect(claimed.fresh_session).toBe(true)
    await client.runs.report(companyId, claimed.run.id, { runner_id: 'by-hand', status: 'succeeded' })
  })

  it('reads on a phone', async () => {
    const phone = await launchBrowser({ width: 390, height: 844 })
    try {
      const small = await phone.context.newPage()
      small.setDefaultTimeout(15_000)
      const email = (await client.me.get()).email
      await signIn(small, server.url, email, PASSWORD, 'Knowledge Works')
      await visit(small, `${server.url}/c/${companyId}/documents?doc=${hostileDocId}`)
      await small.getByRole('heading', { name: 'Build notes', level: 2 }).waitFor()
      const width = await small.evaluate(() => document.documentElement.scrollWidth)
      expect(width).toBeLessThanOrEqual(390)
      await screenshot(small, 'documents-390', { fullPage: true })
      await visit(small, `${server.url}/c/${companyId}/agents/${agentId}`)
      await small.getByRole('region', { name: 'Memory' }).waitFor()
      await screenshot(small, 'agent-knowledge-390', { fullPage: true })
      await visit(small, `${server.url}/c/${companyId}/tasks/${taskKey}`)
      await small.getByRole('button', { name: 'Start afresh' }).waitFor()
      expect(await small.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
      await screenshot(small, 'task-start-afresh-390')
    } finally {
      await phone.close()
    }
  })
})
