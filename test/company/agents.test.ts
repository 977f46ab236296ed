import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCompany, createTask, hireAgent } from '../fixtures.ts'
import { call, createUser, type TestApp, type TestUser, testApp } from '../helpers.ts'
import { auditRows, countRows, insertRun, recordEvents } from './support.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

async function setup() {
  const user = await createUser(t.ctx, 'Hiring Manager')
  const company = await createCompany(t.app, user.token)
  return { user, company, base: `/api/companies/${company.id}` }
}

const post = (user: TestUser, url: string, body?: unknown) => call(t.app, 'POST', url, { token: user.token, body })
const patch = (user: TestUser, url: string, body: unknown) => call(t.app, 'PATCH', url, { token: user.token, body })
const get = (user: TestUser, url: string) => call(t.app, 'GET', url, { token: user.token })

describe('hire', () => {
  it('hires an idle agent with defaults, an audit event and agent.created', async () => {
    const { user, company, base } = await setup()
    const events = recordEvents(t.ctx, company.id)
    const r = await post(user, `${base}/agents`, { name: 'Ada', capabilities: ['code'], heartbeat_cron: '*/5 * * * *' })
    expect(r.status).toBe(201)
    expect(r.body).toMatchObject({
      company_id: company.id, name: 'Ada', title: null, role: 'engineer', adapter: 'agent_cli_1', reports_to_id: null,
      heartbeat_cron: '*/5 * * * *', instructions: null, capabilities: ['code'], monthly_budget_cents: 0,
      spend_mtd_cents: 0, open_tasks: 0, last_activity: null, status: 'idle',
    })
    expect(typeof r.body.avatar_seed).toBe('number')
    expect(events).toEqual([{ type: 'agent.created', id: r.body.id }])
    const [audit] = await auditRows(t.ctx, company.id, r.body.id)
    expect(audit).toMatchObject({ actor_type: 'user', actor_name: 'Hiring Manager', verb: 'hired', entity_type: 'agent', label: 'Ada' })
    expect(audit.changes.status).toEqual([null, 'idle'])
  })

  it('applies the create-time limits', async () => {
    const { user, company, base } = await setup()
    for (const body of [{}, { name: '' }, { name: 'x'.repeat(101) }, { name: 'A', title: 'x'.repeat(121) },
      { name: 'A', role: 'x'.repeat(51) }, { name: 'A', adapter: 'x'.repeat(51) }, { name: 'A', monthly_budget_cents: -1 },
      { name: 'A', reports_to_id: 'nope' }, { name: 'A', request_approval: 'yes' }, { name: 'A', capabilities: 'all' },
      { name: 'A', heartbeat_cron: 'x'.repeat(101) }]) {
      const r = await post(user, `${base}/agents`, body)
      expect(r.status, JSON.stringify(body)).toBe(422)
    }
    const max = await post(user, `${base}/agents`, { name: 'x'.repeat(100), title: 'x'.repeat(120), role: 'x'.repeat(50), adapter: 'x'.repeat(50) })
    expect(max.status).toBe(201)
    expect(await countRows(t.ctx, 'agents', company.id)).toBe(1)
  })

  it('with request_approval: pending_approval, a hire_agent approval, agent.created and approval.created (id null)', async () => {
    const { user, company, base } = await setup()
    const events = recordEvents(t.ctx, company.id)
    const r = await post(user, `${base}/agents`, { name: 'Pending Pete', request_approval: true })
    expect(r.status).toBe(201)
    expect(r.body.status).toBe('pending_approval')
    const approval = await t.ctx.db.one(`SELECT * FROM approvals WHERE company_id = $1`, [company.id])
    expect(approval).toMatchObject({ type: 'hire_agent', status: 'pending', agent_id: r.body.id, requested_by_user_id: user.id })
    expect(events).toEqual([{ type: 'agent.created', id: r.body.id }, { type: 'approval.created', id: null }])
    const audit = await auditRows(t.ctx, company.id)
    expect(audit.slice(-2).map((a) => [a.verb, a.entity_type])).toEqual([['hired', 'agent'], ['created', 'approval']])
  })

  it('needs a manager in the same company', async () => {
    const { user, base } = await setup()
    const other = await setup()
    const foreign = await hireAgent(t.app, other.user.token, other.company.id)
    const r = await post(user, `${base}/agents`, { name: 'A', reports_to_id: foreign.id })
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Manager not found')
  })
})

describe('read', () => {
  it('another company\'s agent is 404, a bad id 422', async () => {
    const a = await setup()
    const b = await setup()
    const agent = await hireAgent(t.app, b.user.token, b.company.id)
    const r = await get(a.user, `${a.base}/agents/${agent.id}`)
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Agent not found')
    expect((await get(a.user, `${a.base}/agents/123`)).status).toBe(422)
  })

  it('reports month-to-date spend and open tasks on get, list and org', async () => {
    const { user, company, base } = await setup()
    const agent = await hireAgent(t.app, user.token, company.id)
    await insertRun(t.ctx, { companyId: company.id, agentId: agent.id, status: 'succeeded', costCents: 120 })
    await insertRun(t.ctx, { companyId: company.id, agentId: agent.id, status: 'failed', costCents: 30 })
    // Last month's run does not count.
    await insertRun(t.ctx, {
      companyId: company.id, agentId: agent.id, status: 'succeeded', costCents: 999,
      createdAt: new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1) - 1000).toISOString(),
    })
    for (const status of ['backlog', 'todo', 'done', 'cancelled', 'blocked']) {
      await createTask(t.app, user.token, company.id, { assignee_agent_id: agent.id, status })
    }
    const one = await get(user, `${base}/agents/${agent.id}`)
    expect(one.body).toMatchObject({ spend_mtd_cents: 150, open_tasks: 3 })
    const list = await get(user, `${base}/agents`)
    expect(list.body[0]).toMatchObject({ id: agent.id, spend_mtd_cents: 150, open_tasks: 3 })
    const org = await get(user, `${base}/org`)
    expect(org.body[0].agent).toMatchObject({ id: agent.id, spend_mtd_cents: 150, open_tasks: 3 })
  })
})

describe('update', () => {
  it('changes fields without length checks on title, role and adapter; audits and publishes only real changes', async () => {
    const { user, company, base } = await setup()
    const agent = await hireAgent(t.app, user.token, company.id, { name: 'Bo' })
    const events = recordEvents(t.ctx, company.id)
    const long = 'x'.repeat(300)
    const r = await patch(user, `${base}/agents/${agent.id}`, { title: long, role: long, adapter: long, monthly_budget_cents: 500 })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ title: long, role: long, adapter: long, monthly_budget_cents: 500 })
    expect(events).toEqual([{ type: 'agent.updated', id: agent.id }])
    const audit = (await auditRows(t.ctx, company.id, agent.id)).at(-1)!
    expect(audit.verb).toBe('updated')
    expect(Object.keys(audit.changes).sort()).toEqual(['adapter', 'monthly_budget_cents', 'role', 'title'])
    expect(audit.changes.monthly_budget_cents).toEqual([0, 500])

    const same = await patch(user, `${base}/agents/${agent.id}`, { title: long })
    expect(same.status).toBe(200)
    expect(events).toHaveLength(1)
    expect((await patch(user, `${base}/agents/${agent.id}`, { name: '' })).status).toBe(422)
  })

  it('rejects a manager that is the agent itself or one of its reports with ORG_CYCLE', async () => {
    const { user, company, base } = await setup()
    const ceo = await hireAgent(t.app, user.token, company.id)
    const cto = await hireAgent(t.app, user.token, company.id, { reports_to_id: ceo.id })
    const dev = await hireAgent(t.app, user.token, company.id, { reports_to_id: cto.id })
    for (const managerId of [ceo.id, dev.id]) {
      const r = await patch(user, `${base}/agents/${ceo.id}`, { reports_to_id: managerId })
      expect(r.status).toBe(400)
      expect(r.body.error.code).toBe('ORG_CYCLE')
    }
    const other = await setup()
    const foreign = await hireAgent(t.app, other.user.token, other.company.id)
    const r = await patch(user, `${base}/agents/${dev.id}`, { reports_to_id: foreign.id })
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Manager not found')
    // Moving down the tree the other way is fine, and null clears the manager.
    expect((await patch(user, `${base}/agents/${dev.id}`, { reports_to_id: ceo.id })).body.reports_to_id).toBe(ceo.id)
    expect((await patch(user, `${base}/agents/${dev.id}`, { reports_to_id: null })).body.reports_to_id).toBe(null)
  })
})

describe('status changes', () => {
  it('pause and resume follow the status table', async () => {
    const { user, company, base } = await setup()
    const agent = await hireAgent(t.app, user.token, company.id)
    const events = recordEvents(t.ctx, company.id)
    const paused = await post(user, `${base}/agents/${agent.id}/pause`)
    expect(paused).toMatchObject({ status: 200, body: { status: 'paused' } })
    expect(events).toEqual([{ type: 'agent.updated', id: agent.id }])

    // Pausing again answers 200 and changes nothing.
    const auditBefore = (await auditRows(t.ctx, company.id)).length
    const again = await post(user, `${base}/agents/${agent.id}/pause`)
    expect(again).toMatchObject({ status: 200, body: { status: 'paused' } })
    expect(events).toHaveLength(1)
    expect(await auditRows(t.ctx, company.id)).toHaveLength(auditBefore)

    const resumed = await post(user, `${base}/agents/${agent.id}/resume`)
    expect(resumed).toMatchObject({ status: 200, body: { status: 'idle' } })
    const notPaused = await post(user, `${base}/agents/${agent.id}/resume`)
    expect(notPaused.status).toBe(400)
    expect(notPaused.body.error.code).toBe('INVALID_STATE')

    const verbs = (await auditRows(t.ctx, company.id, agent.id)).map((a) => [a.verb, a.changes.status])
    expect(verbs.slice(1)).toEqual([['paused', ['idle', 'paused']], ['resumed', ['paused', 'idle']]])
  })

  it('refuses to pause a pending_approval or terminated agent, and to terminate twice', async () => {
    const { user, company, base } = await setup()
    const pending = await hireAgent(t.app, user.token, company.id, { request_approval: true })
    const r = await post(user, `${base}/agents/${pending.id}/pause`)
    expect(r.status).toBe(400)
    expect(r.body.error.code).toBe('INVALID_STATE')
    expect((await post(user, `${base}/agents/${pending.id}/terminate`)).body.status).toBe('terminated')
    for (const action of ['pause', 'resume', 'terminate']) {
      const again = await post(user, `${base}/agents/${pending.id}/${action}`)
      expect(again.status, action).toBe(400)
      expect(again.body.error.code).toBe('INVALID_STATE')
    }
    expect((await post(user, `${base}/agents/5f8a2b6e-0000-4000-8000-000000000000/pause`)).status).toBe(404)
  })

  it('pauses running and error agents; their runs are left alone', async () => {
    const { user, company, base } = await setup()
    const agent = await hireAgent(t.app, user.token, company.id)
    const runId = await insertRun(t.ctx, { companyId: company.id, agentId: agent.id, status: 'running' })
    await t.ctx.db.query(`UPDATE agents SET status = 'running' WHERE id = $1`, [agent.id])
    expect((await post(user, `${base}/agents/${agent.id}/pause`)).body.status).toBe('paused')
    expect((await t.ctx.db.one('SELECT status FROM runs WHERE id = $1', [runId]))!.status).toBe('running')
    await t.ctx.db.query(`UPDATE agents SET status = 'error' WHERE id = $1`, [agent.id])
    expect((await post(user, `${base}/agents/${agent.id}/pause`)).body.status).toBe('paused')
  })

  it('terminate cancels queued and running runs, moves reports to the manager and leaves the org chart', async () => {
    const { user, company, base } = await setup()
    const ceo = await hireAgent(t.app, user.token, company.id, { name: 'CEO' })
    const lead = await hireAgent(t.app, user.token, company.id, { name: 'Lead', reports_to_id: ceo.id })
    const dev1 = await hireAgent(t.app, user.token, company.id, { name: 'Dev1', reports_to_id: lead.id })
    const dev2 = await hireAgent(t.app, user.token, company.id, { name: 'Dev2', reports_to_id: lead.id })
    const queued = await insertRun(t.ctx, { companyId: company.id, agentId: lead.id, status: 'queued' })
    const running = await insertRun(t.ctx, { companyId: company.id, agentId: lead.id, status: 'running' })
    const finished = await insertRun(t.ctx, { companyId: company.id, agentId: lead.id, status: 'succeeded' })
    const events = recordEvents(t.ctx, company.id)

    const r = await post(user, `${base}/agents/${lead.id}/terminate`)
    expect(r).toMatchObject({ status: 200, body: { id: lead.id, status: 'terminated' } })

    const runs = await t.ctx.db.many<{ id: string; status: string; ended_at: string | null }>(
      'SELECT id, status, ended_at FROM runs WHERE agent_id = $1', [lead.id])
    const byId = Object.fromEntries(runs.map((run) => [run.id, run]))
    expect(byId[queued]).toMatchObject({ status: 'cancelled', ended_at: expect.any(String) })
    expect(byId[running]).toMatchObject({ status: 'cancelled', ended_at: expect.any(String) })
    expect(byId[finished].status).toBe('succeeded')

    expect(events).toEqual(expect.arrayContaining([
      { type: 'run.updated', id: queued, agent_id: lead.id, status: 'cancelled' },
      { type: 'run.updated', id: running, agent_id: lead.id, status: 'cancelled' },
      { type: 'agent.updated', id: dev1.id },
      { type: 'agent.updated', id: dev2.id },
      { type: 'agent.updated', id: lead.id },
    ]))
    expect(events).toHaveLength(5)

    const audit = await auditRows(t.ctx, company.id)
    const cancelled = audit.filter((a) => a.verb === 'cancelled')
    expect(cancelled.map((a) => a.entity_id).sort()).toEqual([queued, running].sort())
    expect(audit.find((a) => a.verb === 'terminated')).toMatchObject({ entity_id: lead.id, changes: { status: ['idle', 'terminated'] } })
    expect(audit.find((a) => a.entity_id === dev1.id && a.verb === 'updated')!.changes).toEqual({ reports_to_id: [lead.id, ceo.id] })

    const org = await get(user, `${base}/org`)
    expect(org.body).toHaveLength(1)
    expect(org.body[0].agent.id).toBe(ceo.id)
    expect(org.body[0].reports.map((n: any) => n.agent.id).sort()).toEqual([dev1.id, dev2.id].sort())

    const list = await get(user, `${base}/agents`)
    expect(list.body.map((a: any) => a.id)).not.toContain(lead.id)
    const all = await get(user, `${base}/agents?include_terminated=true`)
    expect(all.body.map((a: any) => a.id)).toContain(lead.id)
  })

  it('terminating another company\'s agent is 404 and cancels nothing', async () => {
    const a = await setup()
    const b = await setup()
    const agent = await hireAgent(t.app, b.user.token, b.company.id)
    const runId = await insertRun(t.ctx, { companyId: b.company.id, agentId: agent.id, status: 'queued' })
    const r = await post(a.user, `${a.base}/agents/${agent.id}/terminate`)
    expect(r.status).toBe(404)
    expect((await t.ctx.db.one('SELECT status FROM runs WHERE id = $1', [runId]))!.status).toBe('queued')
    expect((await get(b.user, `${b.base}/agents/${agent.id}`)).body.status).toBe('idle')
  })

  it('terminating a top manager makes its reports roots', async () => {
    const { user, company, base } = await setup()
    const ceo = await hireAgent(t.app, user.token, company.id)
    const cto = await hireAgent(t.app, user.token, company.id, { reports_to_id: ceo.id })
    await post(user, `${base}/agents/${ceo.id}/terminate`)
    const org = await get(user, `${base}/org`)
    expect(org.body).toEqual([{ agent: expect.objectContaining({ id: cto.id, reports_to_id: null }), reports: [] }])
  })
})

describe('org chart', () => {
  it('roots are agents without a manager or whose manager is terminated', async () => {
    const { user, company, base } = await setup()
    const ceo = await hireAgent(t.app, user.token, company.id)
    const cto = await hireAgent(t.app, user.token, company.id, { reports_to_id: ceo.id })
    const dev = await hireAgent(t.app, user.token, company.id, { reports_to_id: cto.id })
    const solo = await hireAgent(t.app, user.token, company.id)
    // A manager terminated outside the terminate endpoint (reports not moved) still leaves the chart.
    const gone = await hireAgent(t.app, user.token, company.id)
    const orphan = await hireAgent(t.app, user.token, company.id, { reports_to_id: gone.id })
    await t.ctx.db.query(`UPDATE agents SET status = 'terminated' WHERE id = $1`, [gone.id])

    const r = await get(user, `${base}/org`)
    expect(r.status).toBe(200)
    expect(r.body.map((n: any) => n.agent.id)).toEqual([ceo.id, solo.id, orphan.id])
    expect(r.body[0].reports[0].agent.id).toBe(cto.id)
    expect(r.body[0].reports[0].reports[0]).toEqual({ agent: expect.objectContaining({ id: dev.id }), reports: [] })
  })
})
