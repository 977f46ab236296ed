// Export and import carry skills and documents (agents' memories too), with their references
// translated; the templates come with skills attached to their agents and a pinned handbook.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, type TestApp, testApp } from '../helpers.ts'
import { seedAgent, seedCompany, type Seeded } from '../runs/seed.ts'

let t: TestApp
let s: Seeded
beforeAll(async () => {
  t = await testApp()
  s = await seedCompany(t, { prefix: 'POR' })
})
afterAll(async () => t?.close())

const as = (method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown) =>
  call(t.app, method, path, { token: s.user.token, ...(body !== undefined ? { body } : {}) })

describe('export and import of knowledge', () => {
  it('an import carries skills (on their agents) and documents (project, memory, marks), each at version 1', async () => {
    const skill = (await as('POST', `${s.base}/skills`, { name: 'code-review', description: 'Review changes', body: 'Read it all.', files: [{ path: 'a/b.md', content: 'x' }] })).body
    const agentId = await seedAgent(t, s, { name: 'Carrier' })
    await as('PATCH', `${s.base}/agents/${agentId}`, { skills: [skill.id] })
    const project = (await as('POST', `${s.base}/projects`, { name: 'Site' })).body
    const doc = (await as('POST', `${s.base}/documents`, { title: 'Site notes', body: 'v1', tags: ['site'], project_id: project.id, pinned: true, agent_editable: true })).body
    await as('PATCH', `${s.base}/documents/${doc.id}`, { body: 'v2: the latest text' })
    await as('POST', `${s.base}/documents`, { title: 'Memory of Carrier', agent_id: agentId, body: '- remember this' })

    const exported = await as('GET', `${s.base}/export`)
    expect(exported.status).toBe(200)
    expect(exported.body.skills).toEqual([expect.objectContaining({ id: skill.id, name: 'code-review', files: [{ path: 'a/b.md', content: 'x' }] })])
    expect(exported.body.agents.find((a: any) => a.id === agentId).skills).toEqual([skill.id])
    expect(exported.body.documents.map((d: any) => [d.title, d.body])).toEqual([['Site notes', 'v2: the latest text'], ['Memory of Carrier', '- remember this']])

    const imported = await as('POST', '/api/companies/import', { ...exported.body, name: 'Copy', task_prefix: 'CPY' })
    expect(imported.status, JSON.stringify(imported.body)).toBe(201)
    const base = `/api/companies/${imported.body.id}`
    const [newSkill] = (await as('GET', `${base}/skills`)).body
    expect(newSkill).toMatchObject({ name: 'code-review', body: 'Read it all.', files: [{ path: 'a/b.md', content: 'x' }] })
    expect(newSkill.id).not.toBe(skill.id)
    const agents = (await as('GET', `${base}/agents`)).body
    const carrier = agents.find((a: any) => a.name === 'Carrier')
    expect(carrier.skills).toEqual([newSkill.id])
    const [newProject] = (await as('GET', `${base}/projects`)).body
    const docs = (await as('GET', `${base}/documents`)).body
    const notes = docs.find((d: any) => d.title === 'Site notes')
    expect(notes).toMatchObject({ body: 'v2: the latest text', tags: ['site'], project_id: newProject.id, pinned: true, agent_editable: true, version: 1, agent_id: null })
    expect(docs.find((d: any) => d.title === 'Memory of Carrier')).toMatchObject({ agent_id: carrier.id, version: 1 })
    expect((await as('GET', `${base}/documents/${notes.id}/versions`)).body.map((v: any) => v.body)).toEqual(['v2: the latest text'])
    expect((await as('GET', `${base}/documents?q=latest`)).body.map((d: any) => d.id)).toEqual([notes.id])
  })

  it('refuses a document whose skill has a path with .., or whose agent names a skill it does not hold', async () => {
    const doc = { format: 'shopfloor.company', version: 1, company: { name: 'Bad' } }
    const badPath = await as('POST', '/api/companies/import', { ...doc, skills: [{ id: 's', name: 'bad', description: 'd', files: [{ path: '../../etc/x', content: 'x' }] }] })
    expect(badPath.status).toBe(422)
    expect(badPath.body.error.details.errors[0].loc).toEqual(['body', 'skills', '0', 'files', '0', 'path'])
    expect(badPath.body.error.message).toContain('must not contain ".."')
    const badRef = await as('POST', '/api/companies/import', { ...doc, agents: [{ id: 'a', name: 'A', skills: ['nope'] }] })
    expect(badRef.status).toBe(422)
    expect(badRef.body.error.message).toContain('No skill in the document has the id "nope"')
    const badName = await as('POST', '/api/companies/import', { ...doc, skills: [{ id: 's', name: 'Bad Name', description: 'd' }] })
    expect(badName.status).toBe(422)
    const badStamp = await as('POST', '/api/companies/import', { ...doc, documents: [{ id: 'd', title: 'T', created_at: 'not a time' }] })
    expect(badStamp.status).toBe(422)
    expect(badStamp.body.error.details.errors[0].loc).toEqual(['body', 'documents', '0'])
    const badMemory = await as('POST', '/api/companies/import', { ...doc, agents: [{ id: 'a', name: 'A' }], documents: [{ id: 'd', title: 'T', agent_id: 'a' }, { id: 'e', title: 'U', agent_id: 'a' }] })
    expect(badMemory.status).toBe(422)
    expect(badMemory.body.error.message).toContain('An agent has one memory document')
    const names = (await as('GET', '/api/companies')).body.map((c: any) => c.name)
    expect(names).not.toContain('Bad')
  })

  it('the templates come with skills on their agents and a pinned handbook', async () => {
    const templates = (await as('GET', '/api/templates')).body
    const studio = templates.find((x: any) => x.id === 'software-studio')
    const imported = await as('POST', '/api/companies/import', { ...studio.document, task_prefix: 'TPL' })
    expect(imported.status, JSON.stringify(imported.body)).toBe(201)
    const base = `/api/companies/${imported.body.id}`
    const skills = (await as('GET', `${base}/skills`)).body
    expect(skills.map((k: any) => k.name)).toEqual(['code-review', 'delegating', 'writing-a-plan'])
    const byName = Object.fromEntries(skills.map((k: any) => [k.name, k.id]))
    const cto = (await as('GET', `${base}/agents`)).body.find((a: any) => a.name === 'Grace')
    expect(cto.skills).toEqual([byName.delegating, byName['writing-a-plan'], byName['code-review']])
    expect((await as('GET', `${base}/documents?pinned=true`)).body.map((d: any) => d.title)).toEqual(['How we work'])
  })
})
