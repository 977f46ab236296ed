import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, type TestApp, testApp } from '../helpers.ts'
import { auditTrail, captureEvents, type Seeded, seedAgent, seedCompany, seedTask } from './seed.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp({ runLeaseSeconds: 120 })
})
afterAll(async () => t?.close())

async function wake(s: Seeded, agent: string, body: Record<string, unknown> = {}) {
  const r = await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body })
  expect(r.status).toBe(201)
  return r.body
}

function claim(s: Seeded, body: Record<string, unknown> = { runner_id: 'runner-1' }) {
  return call(t.app, 'POST', `${s.base}/runs/claim`, { token: s.user.token, body })
}

describe('POST /runs/claim', () => {
  it('answers 204 with no body when nothing is queued', async () => {
    const s = await seedCompany(t)
    const r = await claim(s)
    expect(r.status).toBe(204)
    expect(r.body).toBeNull()
  })

  it('starts the oldest queued run and answers the full run context', async () => {
    const s = await seedCompany(t, { prefix: 'RUN' })
    const boss = await seedAgent(t, s, { name: 'Boss' })
    const agent = await seedAgent(t, s, { name: 'Ada', reportsTo: boss })
    const post = async (path: string, body: Record<string, unknown>) => {
      const r = await call(t.app, 'POST', `${s.base}${path}`, { token: s.user.token, body })
      expect(r.status).toBe(201)
      return r.body
    }
    const root = await post('/goals', { title: 'Root goal' })
    const goal = await post('/goals', { title: 'Child goal', parent_id: root.id })
    const project = await post('/projects', { name: 'Site', repository: 'git@example.test:site.git' })
    const task = await seedTask(t, s, { status: 'backlog', assignee: agent, goalId: goal.id, projectId: project.id })
    for (let i = 0; i < 22; i++) {
      await post(`/tasks/${task}/comments`, { body: `c${i}` })
    }
    const first = await wake(s, agent, { task_id: task, reason: 'first' })
    await wake(s, boss)
    const events = captureEvents(t.ctx, s.companyId)

    const r = await claim(s)
    expect(r.status).toBe(200)
    expect(r.body.lease_seconds).toBe(120)
    expect(r.body.run).toMatchObject({ id: first.id, status: 'running', runner_id: 'runner-1' })
    expect(r.body.run.started_at).toBeTruthy()
    expect(r.body.run.heartbeat_at).toBe(r.body.run.started_at)
    expect(r.body.run.transcript[0].text).toBe('first')
    expect(r.body.agent).toMatchObject({ id: agent, name: 'Ada', status: 'running', spend_mtd_cents: 0 })
    expect(r.body.manager).toMatchObject({ id: boss, name: 'Boss' })
    expect(r.body.company).toMatchObject({ id: s.companyId, name: 'Runs Co', role: 'owner' })
    expect(r.body.task).toMatchObject({ id: task, status: 'in_progress', project_id: project.id })
    expect(r.body.task.key).toBe('RUN-1')
    expect(r.body.task.started_at).toBeTruthy()
    expect(r.body.task.comments.map((c: any) => c.body)).toEqual(Array.from({ length: 20 }, (_, i) => `c${i + 2}`))
    expect(r.body.goal_chain.map((g: any) => g.title)).toEqual(['Child goal', 'Root goal'])
    expect(r.body.project).toMatchObject({ id: project.id, repository: 'git@example.test:site.git' })
    // Each part reads exactly as its own endpoint answers it (same fields, same timestamp form).
    const get = async (path: string) => (await call(t.app, 'GET', `${s.base}${path}`, { token: s.user.token })).body
    const { comments, ...contextTask } = r.body.task
    expect(contextTask).toEqual(await get(`/tasks/${task}`))
    expect(comments).toEqual((await get(`/tasks/${task}/comments`)).slice(-20))
    expect(r.body.agent).toEqual(await get(`/agents/${agent}`))
    expect(r.body.manager).toEqual(await get(`/agents/${boss}`))
    expect(r.body.project).toEqual(await get(`/projects/${project.id}`))
    expect(await get(`/goals/${goal.id}`)).toMatchObject(r.body.goal_chain[0])
    expect(await get(`/goals/${root.id}`)).toMatchObject(r.body.goal_chain[1])

    expect(events).toEqual(expect.arrayContaining([
      { type: 'run.updated', id: first.id, agent_id: agent, status: 'running' },
      { type: 'agent.updated', id: agent },
      { type: 'task.updated', id: task },
    ]))
    const audit = await auditTrail(t.ctx, s.companyId)
    expect(audit).toEqual(expect.arrayContaining([
      // The service started Ada's run: not the person whose key the runner holds.
      expect.objectContaining({ verb: 'started', entity_id: first.id, actor_type: 'system', actor_name: 'Ada', changes: { status: ['queued', 'running'] } }),
      expect.objectContaining({ verb: 'moved', entity_id: task, actor_type: 'system', actor_name: 'Ada' }),
    ]))
  })

  it('answers a context without task, manager, goals or project for a bare wake', async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s)
    await wake(s, agent)
    const r = await claim(s)
    expect(r.body).toMatchObject({ manager: null, task: null, goal_chain: [], project: null })
  })

  it('leaves a task that is already past todo where it is', async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s)
    const task = await seedTask(t, s, { status: 'in_review' })
    await wake(s, agent, { task_id: task })
    const r = await claim(s)
    expect(r.body.task.status).toBe('in_review')
  })

  it('skips dormant agents and agents that already have a running run', async () => {
    const s = await seedCompany(t)
    const busy = await seedAgent(t, s, { name: 'Busy' })
    const paused = await seedAgent(t, s, { name: 'Paused' })
    const free = await seedAgent(t, s, { name: 'Free' })
    const task = await seedTask(t, s)
    await wake(s, busy)
    expect((await claim(s)).body.agent.id).toBe(busy)
    await wake(s, busy, { task_id: task }) // a second run of the busy agent waits
    await wake(s, paused)
    await call(t.app, 'POST', `${s.base}/agents/${paused}/pause`, { token: s.user.token })
    const run = await wake(s, free)
    const r = await claim(s)
    expect(r.body.run.id).toBe(run.id)
    expect((await claim(s)).status).toBe(204)
  })

  it('narrows by agent_ids and adapters', async () => {
    const s = await seedCompany(t)
    const one = await seedAgent(t, s, { adapter: 'agent_cli_1' })
    const two = await seedAgent(t, s, { adapter: 'simulated' })
    await wake(s, one)
    const runTwo = await wake(s, two)
    expect((await claim(s, { runner_id: 'r', adapters: ['http'] })).status).toBe(204)
    const byAdapter = await claim(s, { runner_id: 'r', adapters: ['simulated'] })
    expect(byAdapter.body.run.id).toBe(runTwo.id)
    expect((await claim(s, { runner_id: 'r', agent_ids: [two] })).status).toBe(204)
    const byAgent = await claim(s, { runner_id: 'r', agent_ids: [one, two] })
    expect(byAgent.body.agent.id).toBe(one)
  })

  it('validates the body', async () => {
    const s = await seedCompany(t)
    const r = await claim(s, { runner_id: '' })
    expect(r.status).toBe(422)
    expect(r.body.error.details.errors[0].loc).toEqual(['body', 'runner_id'])
    const long = await claim(s, { runner_id: 'x'.repeat(101) })
    expect(long.status).toBe(422)
    const missing = await claim(s, {})
    expect(missing.status).toBe(422)
  })

  it('expires stale runs first, so their agent can be claimed again', async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s)
    const task = await seedTask(t, s)
    const stale = await wake(s, agent)
    await claim(s)
    await t.ctx.db.query("UPDATE runs SET heartbeat_at = now() - interval '121 seconds' WHERE id = $1", [stale.id])
    const next = await wake(s, agent, { task_id: task })
    const r = await claim(s)
    expect(r.body.run.id).toBe(next.id)
    const old = await t.ctx.db.one('SELECT status, error FROM runs WHERE id = $1', [stale.id])
    expect(old).toMatchObject({ status: 'failed', error: 'The runner stopped reporting (lease expired)' })
  })
})
