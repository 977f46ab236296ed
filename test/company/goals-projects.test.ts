import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCompany, createTask, hireAgent } from '../fixtures.ts'
import { call, createUser, type TestApp, type TestUser, testApp } from '../helpers.ts'
import { auditRows, recordEvents } from './support.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

async function setup() {
  const user = await createUser(t.ctx)
  const company = await createCompany(t.app, user.token)
  return { user, company, base: `/api/companies/${company.id}` }
}
const send = (user: TestUser, method: 'POST' | 'PATCH' | 'DELETE' | 'GET', url: string, body?: unknown) =>
  call(t.app, method, url, { token: user.token, body })

describe('goals', () => {
  it('creates with defaults, counts linked tasks, and publishes goal.* with audit events', async () => {
    const { user, company, base } = await setup()
    const owner = await hireAgent(t.app, user.token, company.id)
    const events = recordEvents(t.ctx, company.id)
    const r = await send(user, 'POST', `${base}/goals`, { title: 'Launch', owner_agent_id: owner.id, target_date: '2031-06-30' })
    expect(r.status).toBe(201)
    expect(r.body).toMatchObject({
      title: 'Launch', description: null, status: 'active', parent_id: null, owner_agent_id: owner.id,
      target_date: '2031-06-30T00:00:00.000000+00:00', tasks_done: 0, tasks_total: 0,
    })
    const goal = r.body
    for (const status of ['done', 'done', 'todo']) await createTask(t.app, user.token, company.id, { goal_id: goal.id, status })
    expect((await send(user, 'GET', `${base}/goals/${goal.id}`)).body).toMatchObject({ tasks_done: 2, tasks_total: 3 })
    expect((await send(user, 'GET', `${base}/goals`)).body[0]).toMatchObject({ id: goal.id, tasks_done: 2, tasks_total: 3 })

    const updated = await send(user, 'PATCH', `${base}/goals/${goal.id}`, { status: 'achieved', target_date: '2031-06-30T00:00:00Z' })
    expect(updated.body.status).toBe('achieved')
    const audit = (await auditRows(t.ctx, company.id, goal.id)).at(-1)!
    expect(audit).toMatchObject({ verb: 'updated', changes: { status: ['active', 'achieved'] } })

    expect((await send(user, 'DELETE', `${base}/goals/${goal.id}`)).status).toBe(204)
    expect((await send(user, 'GET', `${base}/goals/${goal.id}`)).status).toBe(404)
    expect(events.filter((e) => e.type.startsWith('goal.'))).toEqual([
      { type: 'goal.created', id: goal.id }, { type: 'goal.updated', id: goal.id }, { type: 'goal.deleted', id: goal.id },
    ])
  })

  it('nests goals, rejects cycles with GOAL_CYCLE and links from other companies with 404', async () => {
    const { user, base } = await setup()
    const other = await setup()
    const top = (await send(user, 'POST', `${base}/goals`, { title: 'Top' })).body
    const mid = (await send(user, 'POST', `${base}/goals`, { title: 'Mid', parent_id: top.id })).body
    const low = (await send(user, 'POST', `${base}/goals`, { title: 'Low', parent_id: mid.id })).body
    for (const parent of [top, mid, low]) {
      const r = await send(user, 'PATCH', `${base}/goals/${top.id}`, { parent_id: parent.id })
      expect(r.status).toBe(400)
      expect(r.body.error.code).toBe('GOAL_CYCLE')
    }
    const foreignGoal = (await send(other.user, 'POST', `${other.base}/goals`, { title: 'X' })).body
    const foreignAgent = await hireAgent(t.app, other.user.token, other.company.id)
    const badParent = await send(user, 'POST', `${base}/goals`, { title: 'Y', parent_id: foreignGoal.id })
    expect(badParent.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'Parent goal not found' })
    expect((await send(user, 'POST', `${base}/goals`, { title: 'Y', owner_agent_id: foreignAgent.id })).status).toBe(404)
    expect((await send(user, 'GET', `${base}/goals/${foreignGoal.id}`)).status).toBe(404)
    for (const body of [{}, { title: '' }, { title: 'x'.repeat(201) }, { title: 'A', status: 'done' }]) {
      expect((await send(user, 'POST', `${base}/goals`, body)).status).toBe(422)
    }
  })

  it('deleting a goal detaches its sub-goals and tasks', async () => {
    const { user, company, base } = await setup()
    const top = (await send(user, 'POST', `${base}/goals`, { title: 'Top' })).body
    const sub = (await send(user, 'POST', `${base}/goals`, { title: 'Sub', parent_id: top.id })).body
    const task = await createTask(t.app, user.token, company.id, { goal_id: top.id })
    const events = recordEvents(t.ctx, company.id)
    expect((await send(user, 'DELETE', `${base}/goals/${top.id}`)).status).toBe(204)
    expect((await send(user, 'GET', `${base}/goals/${sub.id}`)).body.parent_id).toBe(null)
    expect((await send(user, 'GET', `${base}/tasks/${task.id}`)).body.goal_id).toBe(null)
    // Each detached record is an audited change, published like an edit.
    expect(events).toEqual([
      { type: 'goal.updated', id: sub.id },
      { type: 'task.updated', id: task.id },
      { type: 'goal.deleted', id: top.id },
    ])
    expect(await auditRows(t.ctx, company.id, sub.id)).toContainEqual(expect.objectContaining({ verb: 'updated', entity_type: 'goal', changes: { parent_id: [top.id, null] } }))
    expect(await auditRows(t.ctx, company.id, task.id)).toContainEqual(expect.objectContaining({ verb: 'updated', entity_type: 'task', changes: { goal_id: [top.id, null] } }))
  })
})

describe('projects', () => {
  it('creates active (status ignored), updates status and fields, publishes project.*', async () => {
    const { user, company, base } = await setup()
    const events = recordEvents(t.ctx, company.id)
    const r = await send(user, 'POST', `${base}/projects`, {
      name: 'Web', description: 'Site', repository: 'https://git.example/web.git', monthly_budget_cents: 100, status: 'archived',
    })
    expect(r.status).toBe(201)
    expect(r.body).toMatchObject({
      company_id: company.id, name: 'Web', description: 'Site', repository: 'https://git.example/web.git',
      monthly_budget_cents: 100, status: 'active',
    })
    const updated = await send(user, 'PATCH', `${base}/projects/${r.body.id}`, { status: 'archived', repository: null })
    expect(updated.body).toMatchObject({ status: 'archived', repository: null })
    const same = await send(user, 'PATCH', `${base}/projects/${r.body.id}`, { status: 'archived' })
    expect(same.status).toBe(200)
    expect(events).toEqual([{ type: 'project.created', id: r.body.id }, { type: 'project.updated', id: r.body.id }])
    const audit = await auditRows(t.ctx, company.id, r.body.id)
    expect(audit.map((a) => a.verb)).toEqual(['created', 'updated'])
    expect(audit[1].changes).toEqual({ status: ['active', 'archived'], repository: ['https://git.example/web.git', null] })
    expect((await send(user, 'GET', `${base}/projects`)).body).toHaveLength(1)
  })

  it('validates fields; repository beyond its column is 422; another company\'s project is 404', async () => {
    const { user, base } = await setup()
    const other = await setup()
    for (const body of [{}, { name: '' }, { name: 'x'.repeat(101) }, { name: 'A', monthly_budget_cents: -1 }, { name: 'A', repository: 'x'.repeat(501) }]) {
      expect((await send(user, 'POST', `${base}/projects`, body)).status, JSON.stringify(body)).toBe(422)
    }
    const p = (await send(user, 'POST', `${base}/projects`, { name: 'A' })).body
    expect((await send(user, 'PATCH', `${base}/projects/${p.id}`, { status: 'done' })).status).toBe(422)
    const r = await send(other.user, 'GET', `${other.base}/projects/${p.id}`)
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Project not found')
  })
})
