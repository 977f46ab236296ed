import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCompany } from '../fixtures.ts'
import { call, createUser, type TestApp, testApp } from '../helpers.ts'
import { auditTrail, seedTask } from '../runs/seed.ts'
import { type Org, seedOrg } from './support.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

const as = (o: Org, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) =>
  call(t.app, method, `${o.base}${path}`, { token: o.token, ...(body !== undefined ? { body } : {}) })

function expectForbidden(r: { status: number; body: any }, right: RegExp) {
  expect(r.status).toBe(403)
  expect(r.body.error.code).toBe('FORBIDDEN')
  expect(r.body.error.message).toMatch(right)
}

describe('the run credential in the claim answer', () => {
  it('is a JWT that reads the whole company and GET /api/run answers its run', async () => {
    const o = await seedOrg(t)
    expect(o.token.split('.')).toHaveLength(3)
    for (const path of ['', '/tasks', '/agents', '/org', '/goals', '/projects', '/runs', '/activity', '/approvals', '/members', '/dashboard', '/costs', '/inbox', `/tasks/${o.taskId}/comments`]) {
      const r = await as(o, 'GET', path)
      expect(r.status, path).toBe(200)
    }
    const current = await call(t.app, 'GET', '/api/run', { token: o.token })
    expect(current.status).toBe(200)
    expect(current.body.run).toMatchObject({ id: o.runId, agent_id: o.manager, status: 'running' })
    expect(current.body.agent.id).toBe(o.manager)
    expect(current.body.manager.id).toBe(o.ceo)
    expect(current.body.company.id).toBe(o.companyId)
    expect(current.body.task).toMatchObject({ id: o.taskId, key: 'ORG-1', comments: [] })
    expect(current.body).not.toHaveProperty('run_token')
  })

  it('GET /api/run is 403 for a person', async () => {
    const o = await seedOrg(t)
    const r = await call(t.app, 'GET', '/api/run', { token: o.user.token })
    expectForbidden(r, /run credential/)
  })
})

describe('what an agent may do with it', () => {
  it('creates tasks for nobody, itself and agents below it, attributed to the agent and its run', async () => {
    const o = await seedOrg(t)
    for (const assignee of [null, o.manager, o.report]) {
      const r = await as(o, 'POST', '/tasks', { title: 'Sub', parent_id: o.taskId, assignee_agent_id: assignee })
      expect(r.status).toBe(201)
      expect(r.body).toMatchObject({ created_by_agent_id: o.manager, created_by_user_id: null, assignee_agent_id: assignee })
    }
    const audit = await t.ctx.db.many<{ actor_type: string; actor_agent_id: string; run_id: string; actor_user_id: string | null }>(
      `SELECT actor_type, actor_agent_id, run_id, actor_user_id FROM audit_events
        WHERE company_id = $1 AND entity_type = 'task' AND verb = 'created' AND actor_type = 'agent'`,
      [o.companyId],
    )
    expect(audit).toHaveLength(3)
    for (const a of audit) expect(a).toEqual({ actor_type: 'agent', actor_agent_id: o.manager, run_id: o.runId, actor_user_id: null })
  })

  it('refuses a task for its manager or a peer, naming the right', async () => {
    const o = await seedOrg(t)
    for (const assignee of [o.ceo, o.peer]) {
      const r = await as(o, 'POST', '/tasks', { title: 'Up', assignee_agent_id: assignee })
      expectForbidden(r, /assign tasks to agents other than itself and those below it/)
    }
    const n = await t.ctx.db.one<{ n: number }>('SELECT count(*)::int AS n FROM tasks WHERE company_id = $1', [o.companyId])
    expect(n!.n).toBe(1)
  })

  it('updates tasks it is assigned to or created, and no others', async () => {
    const o = await seedOrg(t)
    expect((await as(o, 'PATCH', `/tasks/${o.taskId}`, { priority: 'high' })).status).toBe(200)
    const own = await as(o, 'POST', '/tasks', { title: 'Mine', assignee_agent_id: o.report })
    expect((await as(o, 'PATCH', `/tasks/${own.body.key}`, { status: 'in_review' })).status).toBe(200)
    const other = await seedTask(t, o, { title: 'Someone else', assignee: o.peer })
    expectForbidden(await as(o, 'PATCH', `/tasks/${other}`, { priority: 'low' }), /update tasks it is neither assigned to nor created/)
    // and it cannot hand its own task up the chart
    expectForbidden(await as(o, 'PATCH', `/tasks/${o.taskId}`, { assignee_agent_id: o.ceo }), /assign tasks/)
    const moved = await as(o, 'PATCH', `/tasks/${o.taskId}`, {})
    expect(moved.body.assignee_agent_id).toBe(o.manager)
  })

  it('comments (comment, question, plan) on any task as the agent', async () => {
    const o = await seedOrg(t)
    const other = await seedTask(t, o, { title: 'Elsewhere', assignee: o.peer })
    for (const kind of ['comment', 'question', 'plan']) {
      const r = await as(o, 'POST', `/tasks/${other}/comments`, { body: `a ${kind}`, kind })
      expect(r.status).toBe(201)
      expect(r.body).toMatchObject({ kind, author_agent_id: o.manager, author_user_id: null, run_id: o.runId })
    }
    const comment = (await as(o, 'GET', `/tasks/${other}/comments`)).body[0]
    expectForbidden(await as(o, 'PATCH', `/tasks/${other}/comments/${comment.id}`, { body: 'edited' }), /edit comments/)
    expectForbidden(await as(o, 'DELETE', `/tasks/${other}/comments/${comment.id}`), /delete comments/)
  })

  it('creates goals and projects but changes neither, nor sets a budget', async () => {
    const o = await seedOrg(t)
    const goal = await as(o, 'POST', '/goals', { title: 'Ship it' })
    expect(goal.status).toBe(201)
    const project = await as(o, 'POST', '/projects', { name: 'Launch' })
    expect(project.status).toBe(201)
    const trail = await auditTrail(t.ctx, o.companyId)
    expect(trail.filter((e) => e.entity_type === 'goal' || e.entity_type === 'project').map((e) => [e.actor_type, e.actor_name]))
      .toEqual([['agent', 'Manager'], ['agent', 'Manager']])
    expectForbidden(await as(o, 'PATCH', `/goals/${goal.body.id}`, { title: 'x' }), /change goals/)
    expectForbidden(await as(o, 'DELETE', `/goals/${goal.body.id}`), /delete goals/)
    expectForbidden(await as(o, 'PATCH', `/projects/${project.body.id}`, { name: 'x' }), /change projects/)
    expectForbidden(await as(o, 'POST', '/projects', { name: 'Rich', monthly_budget_cents: 500 }), /set budgets/)
  })

  it('wakes agents below it and no one else', async () => {
    const o = await seedOrg(t)
    const r = await as(o, 'POST', `/agents/${o.report}/wake`, { reason: 'Look at ORG-1' })
    expect(r.status).toBe(201)
    expect(r.body.agent_id).toBe(o.report)
    const audit = await t.ctx.db.one<{ actor_type: string; actor_agent_id: string; run_id: string }>(
      `SELECT actor_type, actor_agent_id, run_id FROM audit_events WHERE entity_id = $1 AND verb = 'queued'`,
      [r.body.id],
    )
    expect(audit).toEqual({ actor_type: 'agent', actor_agent_id: o.manager, run_id: o.runId })
    for (const agent of [o.ceo, o.peer, o.manager]) {
      expectForbidden(await as(o, 'POST', `/agents/${agent}/wake`, {}), /wake agents that are not below it/)
    }
    expect((await as(o, 'POST', `/agents/00000000-0000-4000-8000-000000000000/wake`, {})).status).toBe(404)
  })

  it('hires only through a hire_agent approval requested by the agent', async () => {
    const o = await seedOrg(t)
    const r = await as(o, 'POST', '/agents', { name: 'Newbie', reports_to_id: o.manager, request_approval: false })
    expect(r.status).toBe(201)
    expect(r.body.status).toBe('pending_approval')
    const approval = await t.ctx.db.one<Record<string, unknown>>(
      'SELECT type, status, requested_by_agent_id, requested_by_user_id FROM approvals WHERE agent_id = $1',
      [r.body.id],
    )
    expect(approval).toEqual({ type: 'hire_agent', status: 'pending', requested_by_agent_id: o.manager, requested_by_user_id: null })
  })

  it('is refused everything else with 403 naming the missing right', async () => {
    const o = await seedOrg(t)
    const hire = await as(o, 'POST', '/agents', { name: 'Waiting' })
    const approval = await t.ctx.db.one<{ id: string }>('SELECT id FROM approvals WHERE agent_id = $1', [hire.body.id])
    const cases: [string, 'POST' | 'PATCH' | 'DELETE', string, unknown, RegExp][] = [
      ['approve', 'POST', `/approvals/${approval!.id}/approve`, {}, /decide approvals/],
      ['reject', 'POST', `/approvals/${approval!.id}/reject`, {}, /decide approvals/],
      ['company', 'PATCH', '', { monthly_budget_cents: 1 }, /change the company/],
      ['agent', 'PATCH', `/agents/${o.report}`, { monthly_budget_cents: 1 }, /change agents/],
      ['pause', 'POST', `/agents/${o.report}/pause`, undefined, /pause, resume or terminate agents/],
      ['resume', 'POST', `/agents/${o.report}/resume`, undefined, /pause, resume or terminate agents/],
      ['terminate', 'POST', `/agents/${o.report}/terminate`, undefined, /pause, resume or terminate agents/],
      ['delete task', 'DELETE', `/tasks/${o.taskId}`, undefined, /delete tasks/],
      ['claim', 'POST', '/runs/claim', { runner_id: 'x' }, /lacks the right to use the runner routes/],
      ['report', 'PATCH', `/runs/${o.runId}`, { runner_id: 'test-runner', status: 'succeeded' }, /lacks the right to use the runner routes/],
      ['cancel', 'POST', `/runs/${o.runId}/cancel`, undefined, /lacks the right to use the runner routes/],
      ['heartbeat', 'POST', `/runs/${o.runId}/heartbeat`, { runner_id: 'test-runner' }, /lacks the right to use the runner routes/],
      ['expire', 'POST', '/runs/expire-stale', undefined, /lacks the right to use the runner routes/],
      ['routine', 'POST', '/routines', { agent_id: o.report, title: 'r', cron: '0 * * * *' }, /lacks the right to manage routines/],
      ['webhook', 'POST', '/webhooks', { url: 'https://example.com/hook', events: ['*'] }, /lacks the right to manage webhooks/],
    ]
    for (const [name, method, path, body, right] of cases) {
      const r = await as(o, method, path, body)
      expect(r.status, name).toBe(403)
      expect(r.body.error.code, name).toBe('FORBIDDEN')
      expect(r.body.error.message, name).toMatch(right)
    }
    const state = await t.ctx.db.one<{ agent: string; approval: string; run: string }>(
      `SELECT (SELECT status FROM agents WHERE id = $1) AS agent, (SELECT status FROM approvals WHERE id = $2) AS approval,
              (SELECT status FROM runs WHERE id = $3) AS run`,
      [o.report, approval!.id, o.runId],
    )
    expect(state).toEqual({ agent: 'idle', approval: 'pending', run: 'running' })
  })

  it('refuses a run_id of another run and accepts its own', async () => {
    const o = await seedOrg(t)
    const otherTask = await seedTask(t, o, { title: 'Peer work', assignee: o.peer })
    const { claim } = await import('./support.ts')
    const peerRun = (await claim(t, o, o.peer)).run.id
    expectForbidden(await as(o, 'POST', `/tasks/${otherTask}/comments`, { body: 'as the peer', run_id: peerRun }), /act for another run/)
    expectForbidden(await as(o, 'POST', '/tasks', { title: 'as the peer', run_id: peerRun }), /act for another run/)
    const own = await as(o, 'POST', `/tasks/${otherTask}/comments`, { body: 'as me', run_id: o.runId })
    expect(own.status).toBe(201)
    expect(own.body.author_agent_id).toBe(o.manager)
  })
})

describe('where it cannot go', () => {
  it('another company is 404 Company not found, even one the runner’s person owns', async () => {
    const o = await seedOrg(t)
    const stranger = await createUser(t.ctx)
    const theirs = await createCompany(t.app, stranger.token)
    const mine = await createCompany(t.app, o.user.token)
    for (const id of [theirs.id, mine.id]) {
      for (const [method, path] of [['GET', ''], ['GET', '/tasks'], ['POST', '/tasks']] as const) {
        const r = await call(t.app, method, `/api/companies/${id}${path}`, { token: o.token, ...(method === 'POST' ? { body: { title: 'x' } } : {}) })
        expect(r.status).toBe(404)
        expect(r.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'Company not found' })
      }
    }
  })

  it('account routes are 403', async () => {
    const o = await seedOrg(t)
    for (const [method, url] of [
      ['GET', '/api/me'], ['PATCH', '/api/me'], ['PATCH', '/api/me/preferences'], ['GET', '/api/me/api-keys'], ['POST', '/api/me/api-keys'],
      ['POST', '/api/logout'], ['GET', '/api/companies'], ['POST', '/api/companies'],
    ] as const) {
      const r = await call(t.app, method, url, { token: o.token, ...(method === 'GET' ? {} : { body: { name: 'x' } }) })
      expect(r.status, `${method} ${url}`).toBe(403)
      expect(r.body.error.code).toBe('FORBIDDEN')
    }
  })
})

describe('the credential ends with its run', () => {
  async function dead(o: Org) {
    const r = await as(o, 'GET', '/tasks')
    expect(r.status).toBe(401)
    expect(r.body.error.code).toBe('INVALID_TOKEN')
    expect((await call(t.app, 'GET', '/api/run', { token: o.token })).status).toBe(401)
  }

  it('when the run finishes', async () => {
    const o = await seedOrg(t)
    expect((await as(o, 'GET', '/tasks')).status).toBe(200)
    const r = await call(t.app, 'PATCH', `${o.base}/runs/${o.runId}`, { token: o.user.token, body: { runner_id: 'test-runner', status: 'succeeded' } })
    expect(r.status).toBe(200)
    await dead(o)
  })

  it('when the run is cancelled', async () => {
    const o = await seedOrg(t)
    expect((await call(t.app, 'POST', `${o.base}/runs/${o.runId}/cancel`, { token: o.user.token })).status).toBe(200)
    await dead(o)
  })

  it('when the run expires', async () => {
    const o = await seedOrg(t)
    const { backdateLease } = await import('../runs/seed.ts')
    await backdateLease(t.ctx, o.runId, 3600)
    expect((await call(t.app, 'POST', `${o.base}/runs/expire-stale`, { token: o.user.token })).body.expired).toContain(o.runId)
    await dead(o)
  })

  it('when the agent is terminated', async () => {
    const o = await seedOrg(t)
    expect((await call(t.app, 'POST', `${o.base}/agents/${o.manager}/terminate`, { token: o.user.token })).status).toBe(200)
    await dead(o)
  })

  it('a tampered token is 401', async () => {
    const o = await seedOrg(t)
    const r = await call(t.app, 'GET', `${o.base}/tasks`, { token: `${o.token.slice(0, -2)}xx` })
    expect(r.status).toBe(401)
  })
})


describe('the event stream of a run credential', () => {
  it('ends when the run ends', async () => {
    const { listen, openStream, waitUntil } = await import('../events/support.ts')
    const own = await testApp()
    try {
      const base = await listen(own.app)
      const o = await seedOrg(own)
      const stream = await openStream(base, o.companyId, { token: o.token })
      expect(stream.status).toBe(200)
      await waitUntil(() => stream.body().includes('retry:'), 'the stream to open')
      let ended = false
      void stream.ended.then(() => (ended = true))
      const r = await call(own.app, 'PATCH', `${o.base}/runs/${o.runId}`, { token: o.user.token, body: { runner_id: 'test-runner', status: 'succeeded' } })
      expect(r.status).toBe(200)
      await waitUntil(() => ended, 'the stream to end')
      expect(stream.events().at(-1)).toMatchObject({ type: 'run.updated', id: o.runId, status: 'succeeded' })
      const again = await openStream(base, o.companyId, { token: o.token })
      expect(again.status).toBe(401)
    } finally {
      await own.close()
    }
  })
})
