import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { systemActor } from '../../src/server/actor.ts'
import { triggerRoutine } from '../../src/domain/routines/trigger.ts'
import { createCompany, hireAgent } from '../fixtures.ts'
import { call, createUser, type TestApp, testApp } from '../helpers.ts'
import { auditTrail, captureEvents } from '../runs/seed.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

async function setup() {
  const user = await createUser(t.ctx, 'Planner')
  const company = await createCompany(t.app, user.token, { task_prefix: 'RTN' })
  const base = `/api/companies/${company.id}`
  const agent = await hireAgent(t.app, user.token, company.id, { name: 'Cron Bot' })
  return { user, companyId: company.id as string, base, agent }
}

describe('routines CRUD', () => {
  it('creates with defaults, reads, lists; publishes and audits', async () => {
    const { user, companyId, base, agent } = await setup()
    const events = captureEvents(t.ctx, companyId)
    const r = await call(t.app, 'POST', `${base}/routines`, { token: user.token, body: { agent_id: agent.id, title: 'Daily report', cron: 'not even a cron' } })
    expect(r.status).toBe(201)
    expect(r.body).toMatchObject({ agent_id: agent.id, project_id: null, title: 'Daily report', description: null, cron: 'not even a cron', enabled: true, last_run_at: null })
    expect(r.body.created_at).toBeTruthy()
    expect(events).toEqual([{ type: 'routine.created', id: r.body.id }])
    expect(await auditTrail(t.ctx, companyId)).toContainEqual(expect.objectContaining({ verb: 'created', entity_type: 'routine', entity_id: r.body.id }))
    const got = await call(t.app, 'GET', `${base}/routines/${r.body.id}`, { token: user.token })
    expect(got.body).toEqual(r.body)
    const list = await call(t.app, 'GET', `${base}/routines`, { token: user.token })
    expect(list.body).toEqual([r.body])
  })

  it('validates fields and that the agent and project are in the company', async () => {
    const { user, base, agent } = await setup()
    const other = await setup()
    const post = (body: Record<string, unknown>) => call(t.app, 'POST', `${base}/routines`, { token: user.token, body })
    const missing = await post({})
    expect(missing.status).toBe(422)
    expect(missing.body.error.details.errors.map((e: any) => e.loc[1]).sort()).toEqual(['agent_id', 'cron', 'title'])
    expect((await post({ agent_id: agent.id, title: 'x'.repeat(201), cron: '* * * * *' })).status).toBe(422)
    expect((await post({ agent_id: agent.id, title: 'ok', cron: 'x'.repeat(101) })).status).toBe(422)
    expect((await post({ agent_id: agent.id, title: 'ok', cron: '' })).status).toBe(422)
    expect((await post({ agent_id: agent.id, title: 'ok', cron: '* * * * *', enabled: 'yes' })).status).toBe(422)
    const foreignAgent = await post({ agent_id: other.agent.id, title: 'ok', cron: '* * * * *' })
    expect(foreignAgent.status).toBe(404)
    expect(foreignAgent.body.error.message).toBe('Agent not found')
    const foreignProject = await post({ agent_id: agent.id, title: 'ok', cron: '* * * * *', project_id: '00000000-0000-4000-8000-000000000000' })
    expect(foreignProject.status).toBe(404)
    expect(foreignProject.body.error.message).toBe('Project not found')
  })

  it('PATCH changes present fields only and publishes only on change', async () => {
    const { user, companyId, base, agent } = await setup()
    const project = await call(t.app, 'POST', `${base}/projects`, { token: user.token, body: { name: 'Ops' } })
    const r = await call(t.app, 'POST', `${base}/routines`, { token: user.token, body: { agent_id: agent.id, title: 'Sweep', cron: '0 * * * *', description: 'd' } })
    const events = captureEvents(t.ctx, companyId)
    const same = await call(t.app, 'PATCH', `${base}/routines/${r.body.id}`, { token: user.token, body: { title: 'Sweep' } })
    expect(same.status).toBe(200)
    expect(events).toEqual([])
    const changed = await call(t.app, 'PATCH', `${base}/routines/${r.body.id}`, {
      token: user.token, body: { enabled: false, description: null, project_id: project.body.id },
    })
    expect(changed.body).toMatchObject({ title: 'Sweep', cron: '0 * * * *', enabled: false, description: null, project_id: project.body.id })
    expect(events).toEqual([{ type: 'routine.updated', id: r.body.id }])
    const audit = await auditTrail(t.ctx, companyId)
    expect(audit.at(-1)).toMatchObject({ verb: 'updated', changes: { enabled: [true, false], description: ['d', null], project_id: [null, project.body.id] } })
    const other = await setup()
    const foreign = await call(t.app, 'PATCH', `${base}/routines/${r.body.id}`, { token: user.token, body: { agent_id: other.agent.id } })
    expect(foreign.status).toBe(404)
    expect((await call(t.app, 'PATCH', `${base}/routines/${r.body.id}`, { token: user.token, body: { agent_id: null } })).status).toBe(422)
  })

  it('DELETE answers 204 and keeps the tasks and runs the routine made', async () => {
    const { user, companyId, base, agent } = await setup()
    const r = await call(t.app, 'POST', `${base}/routines`, { token: user.token, body: { agent_id: agent.id, title: 'Once', cron: '* * * * *' } })
    const triggered = await call(t.app, 'POST', `${base}/routines/${r.body.id}/trigger`, { token: user.token })
    const events = captureEvents(t.ctx, companyId)
    const del = await call(t.app, 'DELETE', `${base}/routines/${r.body.id}`, { token: user.token })
    expect(del.status).toBe(204)
    expect(events).toEqual([{ type: 'routine.deleted', id: r.body.id }])
    expect((await call(t.app, 'GET', `${base}/routines/${r.body.id}`, { token: user.token })).status).toBe(404)
    const run = await call(t.app, 'GET', `${base}/runs/${triggered.body.run.id}`, { token: user.token })
    expect(run.body).toMatchObject({ routine_id: null, task_id: triggered.body.task.id })
    expect((await call(t.app, 'DELETE', `${base}/routines/${r.body.id}`, { token: user.token })).status).toBe(404)
  })
})

describe('POST /routines/{routine_id}/trigger', () => {
  it('creates the task, queues a routine run and stamps last_run_at', async () => {
    const { user, companyId, base, agent } = await setup()
    const project = await call(t.app, 'POST', `${base}/projects`, { token: user.token, body: { name: 'Ops' } })
    const r = await call(t.app, 'POST', `${base}/routines`, {
      token: user.token, body: { agent_id: agent.id, title: 'Nightly', cron: '0 0 * * *', description: 'Check things', project_id: project.body.id },
    })
    const events = captureEvents(t.ctx, companyId)
    const res = await call(t.app, 'POST', `${base}/routines/${r.body.id}/trigger`, { token: user.token })
    expect(res.status).toBe(201)
    const { routine, task, run } = res.body
    expect(routine.last_run_at).toBeTruthy()
    expect(task).toMatchObject({ key: 'RTN-1', title: 'Nightly', description: 'Check things', status: 'todo', assignee_agent_id: agent.id, project_id: project.body.id, created_by_user_id: user.id })
    expect(run).toMatchObject({ agent_id: agent.id, task_id: task.id, routine_id: r.body.id, trigger: 'routine', status: 'queued' })
    expect(events).toEqual(expect.arrayContaining([
      { type: 'task.created', id: task.id },
      { type: 'run.created', id: run.id, agent_id: agent.id },
      { type: 'routine.updated', id: r.body.id },
    ]))
    expect(await auditTrail(t.ctx, companyId)).toEqual(expect.arrayContaining([
      expect.objectContaining({ verb: 'triggered', entity_type: 'routine', entity_id: r.body.id, actor_name: 'Planner' }),
      expect.objectContaining({ verb: 'created', entity_type: 'task', entity_id: task.id }),
      expect.objectContaining({ verb: 'queued', entity_type: 'run', entity_id: run.id }),
    ]))
    // Triggered again: a new task, so a new run.
    const again = await call(t.app, 'POST', `${base}/routines/${r.body.id}/trigger`, { token: user.token })
    expect(again.body.task.key).toBe('RTN-2')
    expect(again.body.run.id).not.toBe(run.id)
  })

  it('refuses when the agent is dormant', async () => {
    const { user, base, agent } = await setup()
    const r = await call(t.app, 'POST', `${base}/routines`, { token: user.token, body: { agent_id: agent.id, title: 'x', cron: '* * * * *' } })
    await call(t.app, 'POST', `${base}/agents/${agent.id}/pause`, { token: user.token })
    const res = await call(t.app, 'POST', `${base}/routines/${r.body.id}/trigger`, { token: user.token })
    expect(res.status).toBe(400)
    expect(res.body.error.code).toBe('INVALID_STATE')
    const tasks = await t.ctx.db.one('SELECT count(*)::int AS n FROM tasks WHERE routine_id = $1', [r.body.id])
    expect(tasks!.n).toBe(0)
  })

  it('the scheduler can trigger with a system actor', async () => {
    const { user, companyId, base, agent } = await setup()
    const r = await call(t.app, 'POST', `${base}/routines`, { token: user.token, body: { agent_id: agent.id, title: 'Tick', cron: '* * * * *' } })
    const { task, run } = await triggerRoutine(t.ctx, companyId, r.body.id, systemActor(agent.name))
    expect(task.created_by_user_id).toBeNull()
    expect(run.trigger).toBe('routine')
    expect(await auditTrail(t.ctx, companyId)).toContainEqual(expect.objectContaining({ verb: 'triggered', actor_type: 'system', actor_name: 'Cron Bot' }))
  })
})
