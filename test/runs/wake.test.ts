import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, type TestApp, testApp } from '../helpers.ts'
import { auditTrail, captureEvents, seedAgent, seedCompany, seedTask } from './seed.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

describe('POST /agents/{agent_id}/wake', () => {
  it('queues a manual run whose first transcript entry is the reason', async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s)
    const task = await seedTask(t, s)
    const events = captureEvents(t.ctx, s.companyId)
    const r = await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body: { task_id: task, reason: 'Check the build' } })
    expect(r.status).toBe(201)
    expect(r.body).toMatchObject({ agent_id: agent, task_id: task, routine_id: null, status: 'queued', trigger: 'manual', runner_id: null })
    expect(r.body.transcript).toHaveLength(1)
    expect(r.body.transcript[0]).toMatchObject({ role: 'system', text: 'Check the build' })
    expect(r.body.transcript[0].timestamp).toMatch(/^\d{4}-\d\d-\d\dT/)
    expect(events).toEqual([{ type: 'run.created', id: r.body.id, agent_id: agent }])
    const audit = await auditTrail(t.ctx, s.companyId)
    expect(audit.at(-1)).toMatchObject({ verb: 'queued', entity_type: 'run', entity_id: r.body.id, actor_type: 'user', actor_name: 'Runs Tester' })
  })

  it('works without a body and gives a default reason', async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s)
    const r = await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token })
    expect(r.status).toBe(201)
    expect(r.body.task_id).toBeNull()
    expect(r.body.transcript[0].text).toBe('Woken by Runs Tester')
  })

  it('reuses the identical queued run and still publishes run.created', async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s)
    const first = await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body: {} })
    const events = captureEvents(t.ctx, s.companyId)
    const second = await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body: { reason: 'again' } })
    expect(second.status).toBe(201)
    expect(second.body.id).toBe(first.body.id)
    expect(events).toEqual([{ type: 'run.created', id: first.body.id, agent_id: agent }])
    const count = await t.ctx.db.one('SELECT count(*)::int AS n FROM runs WHERE agent_id = $1', [agent])
    expect(count!.n).toBe(1)
  })

  it.each(['paused', 'pending_approval', 'terminated'])('refuses a %s agent with INVALID_STATE', async (status) => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s, { status })
    const r = await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body: {} })
    expect(r.status).toBe(400)
    expect(r.body.error.code).toBe('INVALID_STATE')
  })

  it('wakes an agent in error', async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s, { status: 'error' })
    const r = await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body: {} })
    expect(r.status).toBe(201)
  })

  it('404s an agent or task of another company, 422s a bad id', async () => {
    const s = await seedCompany(t)
    const other = await seedCompany(t)
    const foreignAgent = await seedAgent(t, other)
    const foreignTask = await seedTask(t, other)
    const agent = await seedAgent(t, s)
    const a = await call(t.app, 'POST', `${s.base}/agents/${foreignAgent}/wake`, { token: s.user.token, body: {} })
    expect(a.status).toBe(404)
    expect(a.body.error.message).toBe('Agent not found')
    const b = await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body: { task_id: foreignTask } })
    expect(b.status).toBe(404)
    expect(b.body.error.message).toBe('Task not found')
    const c = await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body: { task_id: 'nope' } })
    expect(c.status).toBe(422)
    expect(c.body.error.details.errors[0].loc).toEqual(['body', 'task_id'])
  })
})
