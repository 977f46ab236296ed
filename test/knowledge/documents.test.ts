// Documents through the real API on a real database: search by words in the body, versions of
// every write, the rights of an agent's run credential, audit and live events, bad input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, type TestApp, testApp } from '../helpers.ts'
import { auditTrail } from '../runs/seed.ts'
import { type Org, seedOrg } from '../agents/support.ts'

let t: TestApp
let o: Org
beforeAll(async () => {
  t = await testApp()
  o = await seedOrg(t)
})
afterAll(async () => t?.close())

const person = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) =>
  call(t.app, method, `${o.base}${path}`, { token: o.user.token, ...(body !== undefined ? { body } : {}) })
const agent = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) =>
  call(t.app, method, `${o.base}${path}`, { token: o.token, ...(body !== undefined ? { body } : {}) })

async function created(r: { status: number; body: any }) {
  expect(r.status, JSON.stringify(r.body)).toBe(201)
  return r.body
}

describe('documents', () => {
  it('search finds a document by words in its body (stemmed), best match first, and filters by tag', async () => {
    const deploy = await created(await person('POST', '/documents', {
      title: 'Release checklist', body: '# Releasing\nTag the build, then the runners deploy it to staging.', tags: ['ops', 'release'],
    }))
    const style = await created(await person('POST', '/documents', { title: 'Style guide', body: 'Write short sentences.', tags: ['writing'] }))
    const found = await person('GET', '/documents?q=deploying%20runner')
    expect(found.status).toBe(200)
    expect(found.body.map((d: any) => d.id)).toEqual([deploy.id])
    expect((await person('GET', '/documents?q=sentences')).body.map((d: any) => d.id)).toEqual([style.id])
    expect((await person('GET', '/documents?tag=ops')).body.map((d: any) => d.id)).toEqual([deploy.id])
    expect((await person('GET', '/documents?q=nothing-like-this')).body).toEqual([])
  })

  it('keeps every write as a version with who wrote it, and a stale version is 409', async () => {
    const doc = await created(await person('POST', '/documents', { title: 'Runbook', body: 'v1' }))
    expect(doc).toMatchObject({ version: 1, created_by_user_id: o.user.id, updated_by_user_id: o.user.id, agent_editable: false })
    const second = await person('PATCH', `/documents/${doc.id}`, { body: 'v2', agent_editable: true, version: 1 })
    expect(second.status).toBe(200)
    expect(second.body.version).toBe(2)
    const third = await agent('PATCH', `/documents/${doc.id}`, { body: 'v3 by the agent' })
    expect(third.status, JSON.stringify(third.body)).toBe(200)
    expect(third.body).toMatchObject({ version: 3, updated_by_agent_id: o.manager, updated_by_user_id: null })
    const stale = await person('PATCH', `/documents/${doc.id}`, { body: 'late', version: 2 })
    expect(stale.status).toBe(409)
    expect(stale.body.error.code).toBe('VERSION_CONFLICT')
    const versions = (await person('GET', `/documents/${doc.id}/versions`)).body
    expect(versions.map((v: any) => [v.version, v.body, v.user_id, v.agent_id, v.run_id])).toEqual([
      [3, 'v3 by the agent', null, o.manager, o.runId],
      [2, 'v2', o.user.id, null, null],
      [1, 'v1', o.user.id, null, null],
    ])
    // An unchanged write is no new version.
    expect((await person('PATCH', `/documents/${doc.id}`, { body: 'v3 by the agent' })).body.version).toBe(3)
  })

  it('is audited and published: created, updated, deleted', async () => {
    const events: string[] = []
    const off = t.ctx.bus.subscribe(o.companyId, (e: any) => events.push(`${e.type} ${e.id}`))
    await off.ready
    const doc = await created(await person('POST', '/documents', { title: 'Audited', body: 'a' }))
    await person('PATCH', `/documents/${doc.id}`, { title: 'Audited twice' })
    expect((await person('DELETE', `/documents/${doc.id}`)).status).toBe(204)
    expect((await person('GET', `/documents/${doc.id}`)).status).toBe(404)
    off()
    expect(events).toEqual([`document.created ${doc.id}`, `document.updated ${doc.id}`, `document.deleted ${doc.id}`])
    const trail = (await auditTrail(t.ctx, o.companyId)).filter((e) => e.entity_id === doc.id)
    expect(trail.map((e) => `${e.entity_type} ${e.verb} ${e.actor_type}`)).toEqual(['document created user', 'document updated user', 'document deleted user'])
    expect(trail[1].changes).toEqual({ title: ['Audited', 'Audited twice'] })
  })

  it('an agent reads everything but writes only its own documents, its memory and agent-editable ones', async () => {
    const persons = await created(await person('POST', '/documents', { title: 'Pricing policy', body: 'Owners only.' }))
    expect((await agent('GET', `/documents/${persons.id}`)).status).toBe(200)
    const refused = await agent('PATCH', `/documents/${persons.id}`, { body: 'Agents decide prices.' })
    expect(refused.status).toBe(403)
    expect(refused.body.error.code).toBe('FORBIDDEN')
    expect(refused.body.error.message).toMatch(/write documents it neither created/)
    expect((await person('GET', `/documents/${persons.id}`)).body).toMatchObject({ body: 'Owners only.', version: 1 })
    expect((await agent('DELETE', `/documents/${persons.id}`)).status).toBe(403)

    const own = await created(await agent('POST', '/documents', { title: 'What I learnt', body: 'Tests first.' }))
    expect(own).toMatchObject({ created_by_agent_id: o.manager, agent_id: null })
    expect((await agent('PATCH', `/documents/${own.id}`, { body: 'Tests first, always.' })).status).toBe(200)
    expect((await agent('PATCH', `/documents/${own.id}`, { pinned: true })).status).toBe(403)

    const others = await agent('POST', '/documents', { title: 'Memory of Report', agent_id: o.report })
    expect(others.status).toBe(403)
    expect(others.body.error.message).toMatch(/memory of another agent/)
    const memory = await created(await agent('POST', '/documents', { title: 'Memory', agent_id: o.manager, body: '- likes tests' }))
    const twice = await agent('POST', '/documents', { title: 'Memory again', agent_id: o.manager })
    expect(twice.status).toBe(409)
    expect(twice.body.error.code).toBe('DOCUMENT_EXISTS')
    expect((await person('GET', `/documents?agent_id=${o.manager}`)).body.map((d: any) => d.id)).toEqual([memory.id])
  })

  it('refuses bad input with a 4xx naming the problem and writes nothing', async () => {
    const big = 'x'.repeat(1024 * 1024 + 1)
    const tooBig = await person('POST', '/documents', { title: 'Huge', body: big })
    expect(tooBig.status).toBe(413)
    expect(tooBig.body.error.code).toBe('PAYLOAD_TOO_LARGE')
    expect(tooBig.body.error.message).toMatch(/^body is 1048577 bytes: at most 1 MiB/)
    // Multi-byte characters count as the bytes they take.
    expect((await person('POST', '/documents', { title: 'Huge', body: 'é'.repeat(600_000) })).status).toBe(413)
    expect((await person('GET', '/documents?q=Huge')).body).toEqual([])

    const doc = await created(await person('POST', '/documents', { title: 'Small', body: 'ok' }))
    expect((await person('PATCH', `/documents/${doc.id}`, { body: big })).status).toBe(413)
    expect((await person('GET', `/documents/${doc.id}/versions`)).body).toHaveLength(1)

    const longQuery = await person('GET', `/documents?q=${'a'.repeat(10_000)}`)
    expect(longQuery.status).toBe(422)
    expect(longQuery.body.error.code).toBe('VALIDATION_ERROR')
    expect(JSON.stringify(longQuery.body.error)).toMatch(/q/)
    expect(longQuery.body.error.details.errors[0].loc).toEqual(['query', 'q'])

    const noTitle = await person('POST', '/documents', { body: 'x' })
    expect(noTitle.status).toBe(422)
    expect((await person('POST', '/documents', { title: 'T', tags: ['two words'] })).status).toBe(422)
    const project = await person('POST', '/documents', { title: 'T', project_id: '00000000-0000-4000-8000-000000000000' })
    expect(project.status).toBe(404)
    expect(project.body.error.message).toBe('Project not found')
    // Search syntax a person might type is never a server error.
    for (const q of ['"unclosed', 'a & | !', '-', 'or or', '():*']) {
      expect((await person('GET', `/documents?q=${encodeURIComponent(q)}`)).status, q).toBe(200)
    }
  })
})
