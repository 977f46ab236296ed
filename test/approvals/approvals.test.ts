import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCompany, hireAgent } from '../fixtures.ts'
import { call, createUser, type TestApp, type TestUser, testApp } from '../helpers.ts'
import { auditTrail, captureEvents } from '../runs/seed.ts'
import { finishRun } from './flow.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

async function setup() {
  const user = await createUser(t.ctx, 'Decider')
  const company = await createCompany(t.app, user.token)
  return { user, companyId: company.id as string, base: `/api/companies/${company.id}` }
}

async function agentOf(base: string, user: TestUser, agentId: string) {
  return (await call(t.app, 'GET', `${base}/agents/${agentId}`, { token: user.token })).body
}

async function pendingApprovals(base: string, user: TestUser) {
  return (await call(t.app, 'GET', `${base}/approvals?status=pending`, { token: user.token })).body
}

describe('hire_agent approvals', () => {
  it('approve: the pending agent becomes idle; the decision is recorded and published', async () => {
    const { user, companyId, base } = await setup()
    const agent = await hireAgent(t.app, user.token, companyId, { name: 'Newbie', request_approval: true })
    expect(agent.status).toBe('pending_approval')
    const [approval] = await pendingApprovals(base, user)
    expect(approval).toMatchObject({ type: 'hire_agent', status: 'pending', agent_id: agent.id, company_id: companyId, decided_at: null })
    const events = captureEvents(t.ctx, companyId)
    const r = await call(t.app, 'POST', `${base}/approvals/${approval.id}/approve`, { token: user.token, body: { decision_note: 'welcome' } })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ id: approval.id, status: 'approved', decided_by_user_id: user.id, decision_note: 'welcome', new_budget_cents: null })
    expect(r.body.decided_at).toBeTruthy()
    expect((await agentOf(base, user, agent.id)).status).toBe('idle')
    expect(events).toEqual(expect.arrayContaining([{ type: 'approval.updated', id: approval.id }, { type: 'agent.updated', id: agent.id }]))
    const audit = await auditTrail(t.ctx, companyId)
    expect(audit).toEqual(expect.arrayContaining([
      expect.objectContaining({ verb: 'approved', entity_type: 'approval', entity_id: approval.id, actor_name: 'Decider' }),
      expect.objectContaining({ verb: 'updated', entity_type: 'agent', entity_id: agent.id, changes: { status: ['pending_approval', 'idle'] } }),
    ]))
    const got = await call(t.app, 'GET', `${base}/approvals/${approval.id}`, { token: user.token })
    expect(got.body.status).toBe('approved')
  })

  it('reject: the agent is terminated', async () => {
    const { user, companyId, base } = await setup()
    const agent = await hireAgent(t.app, user.token, companyId, { request_approval: true })
    const [approval] = await pendingApprovals(base, user)
    const r = await call(t.app, 'POST', `${base}/approvals/${approval.id}/reject`, { token: user.token })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ status: 'rejected', decided_by_user_id: user.id })
    expect((await agentOf(base, user, agent.id)).status).toBe('terminated')
  })

  it('a decided approval is ALREADY_DECIDED, before any other check', async () => {
    const { user, companyId, base } = await setup()
    const agent = await hireAgent(t.app, user.token, companyId, { request_approval: true })
    const [approval] = await pendingApprovals(base, user)
    await call(t.app, 'POST', `${base}/approvals/${approval.id}/reject`, { token: user.token })
    expect((await agentOf(base, user, agent.id)).status).toBe('terminated')
    for (const decision of ['approve', 'reject']) {
      const r = await call(t.app, 'POST', `${base}/approvals/${approval.id}/${decision}`, { token: user.token, body: {} })
      expect(r.status).toBe(400)
      expect(r.body.error.code).toBe('ALREADY_DECIDED')
    }
  })

  it('approving when the agent is terminated is INVALID_STATE; rejecting works', async () => {
    const { user, companyId, base } = await setup()
    const agent = await hireAgent(t.app, user.token, companyId, { request_approval: true })
    const [approval] = await pendingApprovals(base, user)
    const terminated = await call(t.app, 'POST', `${base}/agents/${agent.id}/terminate`, { token: user.token })
    expect(terminated.status).toBe(200)
    const r = await call(t.app, 'POST', `${base}/approvals/${approval.id}/approve`, { token: user.token })
    expect(r.status).toBe(400)
    expect(r.body.error.code).toBe('INVALID_STATE')
    expect((await call(t.app, 'GET', `${base}/approvals/${approval.id}`, { token: user.token })).body.status).toBe('pending')
    const rejected = await call(t.app, 'POST', `${base}/approvals/${approval.id}/reject`, { token: user.token })
    expect(rejected.body.status).toBe('rejected')
  })
})

describe('budget_override approvals', () => {
  it('a finished run that reaches the budget pauses the agent and opens one approval', async () => {
    const { user, companyId, base } = await setup()
    const agent = await hireAgent(t.app, user.token, companyId, { name: 'Spender', monthly_budget_cents: 100 })
    await finishRun(t.app, user.token, companyId, agent.id, { cost_cents: 60 })
    expect((await agentOf(base, user, agent.id)).status).toBe('idle')
    expect(await pendingApprovals(base, user)).toEqual([])

    const events = captureEvents(t.ctx, companyId)
    await finishRun(t.app, user.token, companyId, agent.id, { cost_cents: 40 })
    const paused = await agentOf(base, user, agent.id)
    expect(paused).toMatchObject({ status: 'paused', spend_mtd_cents: 100 })
    const approvals = await pendingApprovals(base, user)
    const month = new Date().toISOString().slice(0, 7)
    expect(approvals).toEqual([expect.objectContaining({ type: 'budget_override', agent_id: agent.id, payload: { spend_cents: 100, budget_cents: 100, month } })])
    expect(events).toContainEqual({ type: 'approval.created', id: null })
    expect(events).toContainEqual({ type: 'agent.updated', id: agent.id })
    const audit = await auditTrail(t.ctx, companyId)
    expect(audit).toContainEqual(expect.objectContaining({ verb: 'paused', entity_id: agent.id, actor_type: 'system', actor_name: 'Spender', changes: { status: ['idle', 'paused'] } }))
    expect(audit).toContainEqual(expect.objectContaining({ verb: 'created', entity_type: 'approval', actor_type: 'system', actor_name: 'Spender' }))

    // Resumed while still over budget: paused again by the next finished run, no second approval.
    await call(t.app, 'POST', `${base}/agents/${agent.id}/resume`, { token: user.token })
    await finishRun(t.app, user.token, companyId, agent.id, { cost_cents: 5 })
    expect((await agentOf(base, user, agent.id)).status).toBe('paused')
    expect(await pendingApprovals(base, user)).toHaveLength(1)

    // Approve without a budget: raised by this month's spend (105) on top of the budget (100).
    const r = await call(t.app, 'POST', `${base}/approvals/${approvals[0].id}/approve`, { token: user.token, body: {} })
    expect(r.body.status).toBe('approved')
    expect(await agentOf(base, user, agent.id)).toMatchObject({ status: 'idle', monthly_budget_cents: 205 })
    const after = await auditTrail(t.ctx, companyId)
    expect(after).toContainEqual(expect.objectContaining({ verb: 'updated', entity_id: agent.id, changes: { status: ['paused', 'idle'], monthly_budget_cents: [100, 205] } }))
  })

  it('a failed or cancelled run counts too, and approve with new_budget_cents sets it', async () => {
    const { user, companyId, base } = await setup()
    const agent = await hireAgent(t.app, user.token, companyId, { monthly_budget_cents: 10 })
    await finishRun(t.app, user.token, companyId, agent.id, { cost_cents: 12, status: 'failed' })
    expect((await agentOf(base, user, agent.id)).status).toBe('paused')
    const [approval] = await pendingApprovals(base, user)
    const bad = await call(t.app, 'POST', `${base}/approvals/${approval.id}/approve`, { token: user.token, body: { new_budget_cents: -1 } })
    expect(bad.status).toBe(422)
    const r = await call(t.app, 'POST', `${base}/approvals/${approval.id}/approve`, { token: user.token, body: { new_budget_cents: 500 } })
    expect(r.body).toMatchObject({ status: 'approved', new_budget_cents: 500 })
    expect(await agentOf(base, user, agent.id)).toMatchObject({ status: 'idle', monthly_budget_cents: 500 })
  })

  it('reject leaves the agent paused; a later finished run over budget opens a new approval', async () => {
    const { user, companyId, base } = await setup()
    const agent = await hireAgent(t.app, user.token, companyId, { monthly_budget_cents: 10 })
    await finishRun(t.app, user.token, companyId, agent.id, { cost_cents: 10 })
    const [approval] = await pendingApprovals(base, user)
    const events = captureEvents(t.ctx, companyId)
    const r = await call(t.app, 'POST', `${base}/approvals/${approval.id}/reject`, { token: user.token, body: { decision_note: 'no' } })
    expect(r.body).toMatchObject({ status: 'rejected', decision_note: 'no' })
    expect(events).toEqual([{ type: 'approval.updated', id: approval.id }, { type: 'agent.updated', id: agent.id }])
    expect(await agentOf(base, user, agent.id)).toMatchObject({ status: 'paused', monthly_budget_cents: 10 })
    await call(t.app, 'POST', `${base}/agents/${agent.id}/resume`, { token: user.token })
    await finishRun(t.app, user.token, companyId, agent.id, { cost_cents: 0 })
    expect(await pendingApprovals(base, user)).toHaveLength(1)
  })

  it('terminating an agent whose running run reached the budget neither pauses it nor opens an approval', async () => {
    const { user, companyId, base } = await setup()
    const agent = await hireAgent(t.app, user.token, companyId, { name: 'Leaver', monthly_budget_cents: 10 })
    expect((await call(t.app, 'POST', `${base}/agents/${agent.id}/wake`, { token: user.token, body: {} })).status).toBe(201)
    const claimed = await call(t.app, 'POST', `${base}/runs/claim`, { token: user.token, body: { runner_id: 'r', agent_ids: [agent.id] } })
    const runId = claimed.body.run.id
    const progress = await call(t.app, 'PATCH', `${base}/runs/${runId}`, { token: user.token, body: { runner_id: 'r', status: 'running', cost_cents: 12 } })
    expect(progress.status).toBe(200)
    expect((await agentOf(base, user, agent.id)).status).toBe('running')

    const r = await call(t.app, 'POST', `${base}/agents/${agent.id}/terminate`, { token: user.token })
    expect(r.status).toBe(200)
    expect(r.body.status).toBe('terminated')
    expect(await pendingApprovals(base, user)).toEqual([])
    const audit = (await auditTrail(t.ctx, companyId)).filter((e) => e.entity_id === agent.id || e.entity_id === runId || e.entity_type === 'approval')
    expect(audit.map((e) => [e.verb, e.entity_type])).not.toContainEqual(['paused', 'agent'])
    expect(audit).toContainEqual(expect.objectContaining({ verb: 'cancelled', entity_id: runId, changes: { status: ['running', 'cancelled'] } }))
    // The status it had when terminated, not one the cancellation passed it through.
    expect(audit).toContainEqual(expect.objectContaining({ verb: 'terminated', entity_id: agent.id, changes: { status: ['running', 'terminated'] } }))
  })

  it('a budget of 0 is no limit', async () => {
    const { user, companyId, base } = await setup()
    const agent = await hireAgent(t.app, user.token, companyId, { monthly_budget_cents: 0 })
    await finishRun(t.app, user.token, companyId, agent.id, { cost_cents: 100000 })
    expect((await agentOf(base, user, agent.id)).status).toBe('idle')
    expect(await pendingApprovals(base, user)).toEqual([])
  })

  it('last month\'s spend does not count', async () => {
    const { user, companyId, base } = await setup()
    const agent = await hireAgent(t.app, user.token, companyId, { monthly_budget_cents: 50 })
    const run = await finishRun(t.app, user.token, companyId, agent.id, { cost_cents: 40 })
    await t.ctx.db.query("UPDATE runs SET created_at = date_trunc('month', now()) - interval '1 day' WHERE id = $1", [run.id])
    await finishRun(t.app, user.token, companyId, agent.id, { cost_cents: 40 })
    expect((await agentOf(base, user, agent.id)).status).toBe('idle')
  })
})

describe('action approvals', () => {
  it('approving records the decision only (no endpoint creates them, so the row is written directly)', async () => {
    const { user, companyId, base } = await setup()
    const agent = await hireAgent(t.app, user.token, companyId, { monthly_budget_cents: 7 })
    const row = await t.ctx.db.one<{ id: string }>(
      "INSERT INTO approvals (company_id, type, agent_id, payload) VALUES ($1, 'action', $2, '{\"what\": \"deploy\"}') RETURNING id",
      [companyId, agent.id],
    )
    const r = await call(t.app, 'POST', `${base}/approvals/${row!.id}/approve`, { token: user.token, body: { decision_note: 'go', new_budget_cents: 99 } })
    expect(r.body).toMatchObject({ type: 'action', status: 'approved', decision_note: 'go', payload: { what: 'deploy' } })
    expect(await agentOf(base, user, agent.id)).toMatchObject({ status: 'idle', monthly_budget_cents: 7 })
  })
})

describe('approval reads', () => {
  it('lists newest first with a status filter; another company\'s approval is 404', async () => {
    const { user, companyId, base } = await setup()
    await hireAgent(t.app, user.token, companyId, { request_approval: true })
    await hireAgent(t.app, user.token, companyId, { request_approval: true })
    const all = await call(t.app, 'GET', `${base}/approvals`, { token: user.token })
    expect(all.body).toHaveLength(2)
    expect(Date.parse(all.body[0].created_at)).toBeGreaterThanOrEqual(Date.parse(all.body[1].created_at))
    await call(t.app, 'POST', `${base}/approvals/${all.body[0].id}/approve`, { token: user.token })
    expect((await call(t.app, 'GET', `${base}/approvals?status=approved`, { token: user.token })).body.map((a: any) => a.id)).toEqual([all.body[0].id])
    expect((await call(t.app, 'GET', `${base}/approvals?status=nope`, { token: user.token })).status).toBe(422)
    const other = await setup()
    const foreign = await call(t.app, 'GET', `${other.base}/approvals/${all.body[0].id}`, { token: other.user.token })
    expect(foreign.status).toBe(404)
    expect(foreign.body.error.message).toBe('Approval not found')
    const decide = await call(t.app, 'POST', `${other.base}/approvals/${all.body[1].id}/approve`, { token: other.user.token })
    expect(decide.status).toBe(404)
  })
})
