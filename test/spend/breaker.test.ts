// The runaway breaker (API-DECISIONS.md "Spend control"): max_runs_per_hour checked when a
// claim would start a run, pause_on_repeat when the third finished run on one task repeats the
// summary; pause as the system with an `action` approval; approving resumes and restarts the
// count, rejecting leaves the agent paused; a person resuming the agent instead restarts the count
// and closes the approval, also while a claim races the resume.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCompany } from '../fixtures.ts'
import { call, createUser, type TestApp, type TestUser, testApp } from '../helpers.ts'
import { auditRows, recordEvents } from '../company/support.ts'
import { RESUMED_NOTE } from '../../src/domain/agents/lifecycle.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

async function setup() {
  const user = await createUser(t.ctx, 'Breaker Owner')
  const company = await createCompany(t.app, user.token)
  return { user, company, base: `/api/companies/${company.id}` }
}
const post = (user: TestUser, url: string, body?: unknown) => call(t.app, 'POST', url, { token: user.token, body })
const get = (user: TestUser, url: string) => call(t.app, 'GET', url, { token: user.token })

async function hire(user: TestUser, base: string, fields: Record<string, unknown>) {
  const r = await post(user, `${base}/agents`, { name: `Agent ${Math.random().toString(36).slice(2, 7)}`, adapter: 'simulated', ...fields })
  expect(r.status).toBe(201)
  return r.body.id as string
}

async function claim(user: TestUser, base: string, agentIds?: string[]) {
  const r = await post(user, `${base}/runs/claim`, { runner_id: 'breaker', ...(agentIds ? { agent_ids: agentIds } : {}) })
  expect([200, 204]).toContain(r.status)
  return r.status === 200 ? r.body.run : null
}

async function finish(user: TestUser, base: string, runId: string, summary: string | null = null) {
  const r = await call(t.app, 'PATCH', `${base}/runs/${runId}`, { token: user.token, body: { runner_id: 'breaker', status: 'succeeded', summary } })
  expect(r.status).toBe(200)
}

/** Wakes the agent, claims its run and finishes it. */
async function oneRun(user: TestUser, base: string, agentId: string, taskId?: string, summary: string | null = null) {
  expect((await post(user, `${base}/agents/${agentId}/wake`, taskId ? { task_id: taskId } : {})).status).toBe(201)
  const run = await claim(user, base, [agentId])
  expect(run?.agent_id).toBe(agentId)
  await finish(user, base, run.id, summary)
}

const pendingActions = async (user: TestUser, base: string, agentId: string) =>
  ((await get(user, `${base}/approvals?status=pending`)).body as any[]).filter((a) => a.type === 'action' && a.agent_id === agentId)

describe('max_runs_per_hour', () => {
  it('pauses an agent at its limit instead of starting its run, claims another agent, and resumes on approval', async () => {
    const { user, company, base } = await setup()
    const limited = await hire(user, base, { max_runs_per_hour: 2 })
    const other = await hire(user, base, {})
    await oneRun(user, base, limited)
    await oneRun(user, base, limited)
    await post(user, `${base}/agents/${limited}/wake`, {})
    await post(user, `${base}/agents/${other}/wake`, {})
    const events = recordEvents(t.ctx, company.id)

    const claimed = await claim(user, base)
    expect(claimed.agent_id).toBe(other) // the limited agent's older run is not started
    await finish(user, base, claimed.id)
    const agent = (await get(user, `${base}/agents/${limited}`)).body
    expect(agent.status).toBe('paused')
    const audit = (await auditRows(t.ctx, company.id, limited)).at(-1)!
    expect(audit).toMatchObject({ actor_type: 'system', verb: 'paused', changes: { status: ['idle', 'paused'] } })
    const [approval] = await pendingActions(user, base, limited)
    expect(approval.payload).toEqual({
      reason: `${agent.name} started 2 runs in the last 60 minutes, its limit (max_runs_per_hour 2)`,
      runs: 2,
      window_minutes: 60,
    })
    expect(events).toContainEqual({ type: 'approval.created', id: null })
    expect(events).toContainEqual({ type: 'agent.updated', id: limited })
    const approvalAudit = await auditRows(t.ctx, company.id, approval.id)
    expect(approvalAudit[0]).toMatchObject({ actor_type: 'system', verb: 'created' })
    expect(await claim(user, base)).toBeNull() // paused: nothing to start

    // Approving resumes it, and the count restarts: its waiting run starts now.
    const approved = await post(user, `${base}/approvals/${approval.id}/approve`, {})
    expect(approved.status).toBe(200)
    expect((await get(user, `${base}/agents/${limited}`)).body.status).toBe('idle')
    const resumed = await claim(user, base)
    expect(resumed.agent_id).toBe(limited)
  })

  it('rejecting leaves the agent paused; agents without a limit are never paused', async () => {
    const { user, base } = await setup()
    const limited = await hire(user, base, { max_runs_per_hour: 1 })
    const free = await hire(user, base, {})
    for (let i = 0; i < 3; i++) await oneRun(user, base, free)
    await oneRun(user, base, limited)
    await post(user, `${base}/agents/${limited}/wake`, {})
    expect(await claim(user, base, [limited])).toBeNull()
    const [approval] = await pendingActions(user, base, limited)
    expect((await post(user, `${base}/approvals/${approval.id}/reject`, {})).status).toBe(200)
    expect((await get(user, `${base}/agents/${limited}`)).body.status).toBe('paused')
    expect((await get(user, `${base}/agents/${free}`)).body.status).toBe('idle')
  })

  it('a person resuming the paused agent restarts the count and closes the approval as approved by them', async () => {
    const { user, company, base } = await setup()
    const limited = await hire(user, base, { max_runs_per_hour: 1 })
    await oneRun(user, base, limited)
    await post(user, `${base}/agents/${limited}/wake`, {})
    expect(await claim(user, base, [limited])).toBeNull()
    const [approval] = await pendingActions(user, base, limited)
    const events = recordEvents(t.ctx, company.id)

    expect((await post(user, `${base}/agents/${limited}/resume`, {})).status).toBe(200)
    expect(await pendingActions(user, base, limited)).toEqual([])
    const closed = (await get(user, `${base}/approvals/${approval.id}`)).body
    expect(closed).toMatchObject({ status: 'approved', decided_by_user_id: user.id, decision_note: RESUMED_NOTE })
    expect(closed.decided_at).toBeTruthy()
    expect((await auditRows(t.ctx, company.id, approval.id)).at(-1)).toMatchObject({
      actor_type: 'user', actor_user_id: user.id, verb: 'approved', changes: { status: ['pending', 'approved'] },
    })
    expect(events).toContainEqual({ type: 'approval.updated', id: approval.id })
    expect(events).toContainEqual({ type: 'agent.updated', id: limited })

    // The count restarted from the resume: the waiting run starts, the one after it trips again,
    // with an approval of its own.
    const run = await claim(user, base, [limited])
    expect(run?.agent_id).toBe(limited)
    await finish(user, base, run.id)
    await post(user, `${base}/agents/${limited}/wake`, {})
    expect(await claim(user, base, [limited])).toBeNull()
    expect((await get(user, `${base}/agents/${limited}`)).body.status).toBe('paused')
    const [again] = await pendingActions(user, base, limited)
    expect(again.id).not.toBe(approval.id)
    expect(again.payload).toMatchObject({ runs: 1 })

    // A resume that fails (the agent is not paused) closes nothing.
    expect((await post(user, `${base}/agents/${limited}/resume`, {})).status).toBe(200)
    expect((await post(user, `${base}/agents/${limited}/resume`, {})).body.error.code).toBe('INVALID_STATE')
  })

  it('a resume racing a claim: the run starts once, within the count that restarted at the resume', async () => {
    const { user, company, base } = await setup()
    const limited = await hire(user, base, { max_runs_per_hour: 1 })
    await oneRun(user, base, limited)
    await post(user, `${base}/agents/${limited}/wake`, {})
    expect(await claim(user, base, [limited])).toBeNull() // tripped: paused with an approval
    const rounds = 5
    for (let round = 0; round < rounds; round++) {
      expect((await get(user, `${base}/agents/${limited}`)).body.status).toBe('paused')
      expect(await pendingActions(user, base, limited)).toHaveLength(1)
      const [resumed, raced] = await Promise.all([
        post(user, `${base}/agents/${limited}/resume`, {}),
        post(user, `${base}/runs/claim`, { runner_id: 'racer', agent_ids: [limited] }),
      ])
      expect(resumed.status).toBe(200)
      expect([200, 204]).toContain(raced.status) // never an error
      // Before the resume the claim found it paused; after it, the count had restarted: either
      // way its waiting run starts now, and only that one.
      const run = raced.status === 200 ? raced.body.run : (await post(user, `${base}/runs/claim`, { runner_id: 'racer', agent_ids: [limited] })).body.run
      expect(run.agent_id).toBe(limited)
      expect(await pendingActions(user, base, limited)).toEqual([])
      await call(t.app, 'PATCH', `${base}/runs/${run.id}`, { token: user.token, body: { runner_id: 'racer', status: 'succeeded' } })
      // The next run is one past the limit since the resume: the breaker trips again.
      await post(user, `${base}/agents/${limited}/wake`, {})
      expect((await post(user, `${base}/runs/claim`, { runner_id: 'racer', agent_ids: [limited] })).status).toBe(204)
    }
    const started = await t.ctx.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM runs WHERE agent_id = $1 AND started_at IS NOT NULL`, [limited])
    expect(started!.n).toBe(1 + rounds)
    const decided = await t.ctx.db.many<{ status: string; decided_by_user_id: string | null }>(
      `SELECT status, decided_by_user_id FROM approvals WHERE agent_id = $1 AND type = 'action' ORDER BY created_at`, [limited],
    )
    expect(decided.map((a) => a.status)).toEqual([...Array(rounds).fill('approved'), 'pending'])
    expect(decided.slice(0, rounds).every((a) => a.decided_by_user_id === user.id)).toBe(true)
    // The audit trail ends with the status the agent has.
    expect((await get(user, `${base}/agents/${limited}`)).body.status).toBe('paused')
    const changes = (await auditRows(t.ctx, company.id, limited)).filter((a) => a.changes?.status)
    expect((changes.at(-1)!.changes!.status as string[])[1]).toBe('paused')
  })
})

describe('pause_on_repeat', () => {
  it('pauses the agent when the third finished run on one task repeats the summary', async () => {
    const { user, company, base } = await setup()
    const agent = await hire(user, base, { pause_on_repeat: true })
    const task = (await post(user, `${base}/tasks`, { title: 'Fix the build' })).body
    await oneRun(user, base, agent, task.id, 'Nothing to do')
    await oneRun(user, base, agent, task.id, 'Tried again')
    await oneRun(user, base, agent, task.id, 'Nothing to do')
    await oneRun(user, base, agent, task.id, 'Nothing to do')
    expect((await get(user, `${base}/agents/${agent}`)).body.status).toBe('idle') // 2 alike, not 3
    await oneRun(user, base, agent, task.id, 'Nothing to do')
    expect((await get(user, `${base}/agents/${agent}`)).body.status).toBe('paused')
    const [approval] = await pendingActions(user, base, agent)
    expect(approval.payload).toMatchObject({ runs: 3, reason: expect.stringContaining(`on ${task.key} ended with the same summary`) })
    expect((await auditRows(t.ctx, company.id, agent)).at(-1)).toMatchObject({ actor_type: 'system', verb: 'paused' })

    // Approved: resumed, and only runs after the approval count.
    await post(user, `${base}/approvals/${approval.id}/approve`, {})
    await oneRun(user, base, agent, task.id, 'Nothing to do')
    expect((await get(user, `${base}/agents/${agent}`)).body.status).toBe('idle')
  })

  it('counts only runs since a person resumed the agent', async () => {
    const { user, base } = await setup()
    const agent = await hire(user, base, { pause_on_repeat: true })
    const task = (await post(user, `${base}/tasks`, { title: 'Spin' })).body
    for (let i = 0; i < 3; i++) await oneRun(user, base, agent, task.id, 'Same')
    expect((await get(user, `${base}/agents/${agent}`)).body.status).toBe('paused')
    expect((await post(user, `${base}/agents/${agent}/resume`, {})).status).toBe(200)
    expect(await pendingActions(user, base, agent)).toEqual([])
    await oneRun(user, base, agent, task.id, 'Same')
    await oneRun(user, base, agent, task.id, 'Same')
    expect((await get(user, `${base}/agents/${agent}`)).body.status).toBe('idle') // 2 since the resume
    await oneRun(user, base, agent, task.id, 'Same')
    expect((await get(user, `${base}/agents/${agent}`)).body.status).toBe('paused')
  })

  it('leaves agents without the setting alone', async () => {
    const { user, base } = await setup()
    const agent = await hire(user, base, {})
    const task = (await post(user, `${base}/tasks`, { title: 'Loop' })).body
    for (let i = 0; i < 3; i++) await oneRun(user, base, agent, task.id, 'Same')
    expect((await get(user, `${base}/agents/${agent}`)).body.status).toBe('idle')
  })
})
