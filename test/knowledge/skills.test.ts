// Skills through the real API: create, attach to an agent, the claim's context carries them with
// the pinned documents and the agent's memory; bad names and file paths are refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, type TestApp, testApp } from '../helpers.ts'
import { claim } from '../agents/support.ts'
import { seedAgent, seedCompany, seedTask, type Seeded } from '../runs/seed.ts'

let t: TestApp
let s: Seeded
beforeAll(async () => {
  t = await testApp()
  s = await seedCompany(t, { prefix: 'SK' })
})
afterAll(async () => t?.close())

const person = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) =>
  call(t.app, method, `${s.base}${path}`, { token: s.user.token, ...(body !== undefined ? { body } : {}) })

const review = { name: 'code-review', description: 'Review a change before it merges', body: '# Code review\nRead the diff twice.', files: [{ path: 'checklist.md', content: '- tests' }] }

describe('skills', () => {
  it('are attached to agents and reach the claim with the pinned documents and the memory', async () => {
    const skill = (await person('POST', '/skills', review)).body
    expect(skill).toMatchObject({ name: 'code-review', files: [{ path: 'checklist.md', content: '- tests' }] })
    const agentId = await seedAgent(t, s, { name: 'Reviewer' })
    const patched = await person('PATCH', `/agents/${agentId}`, { skills: [skill.id] })
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
    expect(patched.body.skills).toEqual([skill.id])
    const project = (await person('POST', '/projects', { name: 'Site' })).body
    const otherProject = (await person('POST', '/projects', { name: 'Other' })).body
    await person('POST', '/documents', { title: 'Handbook', body: '# Handbook\nHow we work here, in short.', pinned: true })
    await person('POST', '/documents', { title: 'Site notes', body: 'The site is built with Vite.', pinned: true, project_id: project.id })
    await person('POST', '/documents', { title: 'Other notes', body: 'Not for this task.', pinned: true, project_id: otherProject.id })
    await person('POST', '/documents', { title: 'Unpinned', body: 'Found by search only.' })
    await person('POST', '/documents', { title: 'Memory', agent_id: agentId, body: 'The build needs Node 20.' })
    await seedTask(t, s, { title: 'Review the page', assignee: agentId, projectId: project.id })
    const context = await claim(t, s, agentId)
    expect(context.skills).toEqual([skill])
    expect(context.documents.map((d: any) => [d.title, d.summary])).toEqual([
      ['Site notes', 'The site is built with Vite.'],
      ['Handbook', 'How we work here, in short.'],
    ])
    expect(context.memory).toMatchObject({ title: 'Memory', body: 'The build needs Node 20.', truncated: false, version: 1 })
    const current = await call(t.app, 'GET', '/api/run', { token: context.run_token })
    expect(current.body.skills).toEqual([skill])
    expect(current.body.memory.body).toBe('The build needs Node 20.')

    expect((await person('DELETE', `/skills/${skill.id}`)).status).toBe(204)
    expect((await person('GET', `/agents/${agentId}`)).body.skills).toEqual([])
  })

  it('refuses a bad name, a file path with .. or an absolute one, a taken name, an unknown skill on an agent', async () => {
    for (const name of ['Code Review', 'a'.repeat(65), 'x_y', '']) {
      const r = await person('POST', '/skills', { ...review, name })
      expect(r.status, name).toBe(422)
      expect(r.body.error.details.errors[0].loc).toEqual(['body', 'name'])
    }
    for (const [path, why] of [['../escape.md', 'must not contain ".."'], ['a/../../b', 'must not contain ".."'], ['/etc/passwd', 'must be relative'], ['C:/x', 'must be relative'], ['a\\b', 'must use /'], ['SKILL.md', 'SKILL.md is the skill']]) {
      const r = await person('POST', '/skills', { ...review, name: 'paths', files: [{ path, content: 'x' }] })
      expect(r.status, path).toBe(422)
      expect(r.body.error.message, path).toContain(why)
      expect(r.body.error.details.errors[0].loc).toEqual(['body', 'files', 0, 'path'])
    }
    expect((await person('GET', '/skills')).body.map((k: any) => k.name)).not.toContain('paths')
    await person('POST', '/skills', { ...review, name: 'taken' })
    const twice = await person('POST', '/skills', { ...review, name: 'taken' })
    expect(twice.status).toBe(409)
    expect(twice.body.error.code).toBe('SKILL_EXISTS')
    const tooBig = await person('POST', '/skills', { ...review, name: 'big', files: [{ path: 'a.md', content: 'x'.repeat(1024 * 1024 + 1) }] })
    expect(tooBig.status).toBe(413)
    expect(tooBig.body.error.message).toMatch(/^files\[0\]\.content is 1048577 bytes/)
    const agentId = await seedAgent(t, s, { name: 'Nobody' })
    const unknown = await person('PATCH', `/agents/${agentId}`, { skills: ['00000000-0000-4000-8000-000000000000'] })
    expect(unknown.status).toBe(404)
    expect(unknown.body.error.message).toMatch(/^Skill 00000000-0000-4000-8000-000000000000 not found/)
  })

  it('an agent’s run credential reads skills but does not manage them', async () => {
    const agentId = await seedAgent(t, s, { name: 'Reader' })
    await seedTask(t, s, { title: 'Read skills', assignee: agentId })
    const { run_token: token } = await claim(t, s, agentId)
    expect((await call(t.app, 'GET', `${s.base}/skills`, { token })).status).toBe(200)
    const r = await call(t.app, 'POST', `${s.base}/skills`, { token, body: { ...review, name: 'sneaky' } })
    expect(r.status).toBe(403)
    expect(r.body.error.message).toMatch(/manage skills/)
  })
})
