import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCompany, createTask, hireAgent } from '../fixtures.ts'
import { call, createUser, type TestApp, testApp } from '../helpers.ts'
import { auditRows, insertRun, recordEvents } from './support.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

async function setup() {
  const user = await createUser(t.ctx, 'Commenter')
  const company = await createCompany(t.app, user.token)
  const task = await createTask(t.app, user.token, company.id)
  return { user, company, task, url: `/api/companies/${company.id}/tasks/${task.key}/comments` }
}

describe('comments', () => {
  it('adds, lists oldest first, edits and deletes, each audited and publishing task.commented', async () => {
    const { user, company, task, url } = await setup()
    const events = recordEvents(t.ctx, company.id)
    const first = await call(t.app, 'POST', url, { token: user.token, body: { body: 'First' } })
    expect(first.status).toBe(201)
    expect(first.body).toMatchObject({
      task_id: task.id, kind: 'comment', body: 'First', author_user_id: user.id, author_agent_id: null, run_id: null,
    })
    const second = await call(t.app, 'POST', url, { token: user.token, body: { body: 'Why?', kind: 'question' } })
    expect(second.body.kind).toBe('question')
    const list = await call(t.app, 'GET', url, { token: user.token })
    expect(list.body.map((c: any) => c.body)).toEqual(['First', 'Why?'])

    const edited = await call(t.app, 'PATCH', `${url}/${first.body.id}`, { token: user.token, body: { body: 'First!', kind: 'plan' } })
    expect(edited).toMatchObject({ status: 200, body: { body: 'First!', kind: 'plan' } })
    const unchanged = await call(t.app, 'PATCH', `${url}/${first.body.id}`, { token: user.token, body: { body: 'First!' } })
    expect(unchanged.status).toBe(200)
    const deleted = await call(t.app, 'DELETE', `${url}/${second.body.id}`, { token: user.token })
    expect(deleted.status).toBe(204)
    expect((await call(t.app, 'GET', url, { token: user.token })).body).toHaveLength(1)

    expect(events).toEqual(Array(4).fill({ type: 'task.commented', id: task.id }))
    const audit = (await auditRows(t.ctx, company.id)).filter((a) => a.entity_type === 'comment')
    expect(audit.map((a) => [a.verb, a.label])).toEqual([
      ['created', task.key], ['created', task.key], ['updated', task.key], ['deleted', task.key],
    ])
    expect(audit[2].changes).toEqual({ kind: ['comment', 'plan'], body: ['First', 'First!'] })
  })

  it('accepts neither the system kind nor an empty body', async () => {
    const { user, url } = await setup()
    for (const body of [{ body: 'x', kind: 'system' }, { body: '' }, {}, { body: 5 }]) {
      expect((await call(t.app, 'POST', url, { token: user.token, body })).status, JSON.stringify(body)).toBe(422)
    }
  })

  it('attributes a comment to the running run\'s agent, else RUN_NOT_RUNNING', async () => {
    const { user, company, url } = await setup()
    const agent = await hireAgent(t.app, user.token, company.id, { name: 'Writer' })
    const running = await insertRun(t.ctx, { companyId: company.id, agentId: agent.id, status: 'running' })
    const r = await call(t.app, 'POST', url, { token: user.token, body: { body: 'Plan', kind: 'plan', run_id: running } })
    expect(r.body).toMatchObject({ author_agent_id: agent.id, author_user_id: null, run_id: running })
    const [audit] = (await auditRows(t.ctx, company.id, r.body.id))
    expect(audit).toMatchObject({ actor_type: 'agent', actor_name: 'Writer', run_id: running })

    const queued = await insertRun(t.ctx, { companyId: company.id, agentId: agent.id, status: 'queued' })
    const refused = await call(t.app, 'POST', url, { token: user.token, body: { body: 'x', run_id: queued } })
    expect(refused.status).toBe(400)
    expect(refused.body.error.code).toBe('RUN_NOT_RUNNING')
  })

  it('404 for another company\'s task or comment', async () => {
    const a = await setup()
    const b = await setup()
    const comment = (await call(t.app, 'POST', b.url, { token: b.user.token, body: { body: 'theirs' } })).body
    expect((await call(t.app, 'GET', `/api/companies/${a.company.id}/tasks/${b.task.id}/comments`, { token: a.user.token })).status).toBe(404)
    const r = await call(t.app, 'PATCH', `${a.url}/${comment.id}`, { token: a.user.token, body: { body: 'mine' } })
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Comment not found')
  })
})
