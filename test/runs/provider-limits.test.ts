// Provider limits (API-DECISIONS.md "Provider limits, plans and fallback"): a run that ended on its
// provider's limit is deferred, not burned. Times are back-dated, nothing sleeps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fireHeartbeat, fireRoutine } from '../../src/scheduler/fire.ts'
import { call, type TestApp, testApp } from '../helpers.ts'
import { auditTrail, type Seeded, seedAgent, seedCompany, seedTask } from './seed.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp({ runLeaseSeconds: 60 })
})
afterAll(async () => t?.close())

const claim = (s: Seeded, body: Record<string, unknown> = {}) =>
  call(t.app, 'POST', `${s.base}/runs/claim`, { token: s.user.token, body: { runner_id: 'r1', ...body } })
const report = (s: Seeded, runId: string, body: Record<string, unknown>) =>
  call(t.app, 'PATCH', `${s.base}/runs/${runId}`, { token: s.user.token, body: { runner_id: 'r1', ...body } })
const getRun = (s: Seeded, runId: string) => call(t.app, 'GET', `${s.base}/runs/${runId}`, { token: s.user.token })
const agentStatus = async (agent: string) => (await t.ctx.db.one('SELECT status FROM agents WHERE id = $1', [agent]))!.status
const queuedOf = (agent: string) =>
  t.ctx.db.many<{ id: string; task_id: string | null; trigger: string; not_before: Date | null }>(
    `SELECT id, task_id, trigger, not_before FROM runs WHERE agent_id = $1 AND status = 'queued' ORDER BY created_at`, [agent])
/** Moves a deferred run's reset into the past, as if the wait were over. */
const resetPassed = (runId: string) => t.ctx.db.query(`UPDATE runs SET not_before = now() - interval '1 second' WHERE id = $1`, [runId])

const inAnHour = () => new Date(Date.now() + 3600_000).toISOString()

describe('a run that ended on a provider limit', () => {
  it('fails naming provider and limit, leaves the agent idle and queues its replacement for the reset, claimed only after it', async () => {
    const s = await seedCompany(t, { prefix: 'LIM' })
    const agent = await seedAgent(t, s, { name: 'Ada' })
    const task = await seedTask(t, s, { title: 'Write it', assignee: agent })
    const first = await claim(s)
    expect(first.status).toBe(200)
    const reset = inAnHour()
    const ended = await report(s, first.body.run.id, {
      status: 'failed', error: 'anthropic: usage limit reached (resets 5am)',
      limit: { provider: 'anthropic', kind: 'usage_limit', reset_at: reset },
    })
    expect(ended.status).toBe(200)
    expect(ended.body).toMatchObject({ status: 'failed', error: 'anthropic: usage limit reached (resets 5am)', not_before: null })
    expect(await agentStatus(agent)).toBe('idle')

    const queued = await queuedOf(agent)
    expect(queued).toHaveLength(1)
    expect(queued[0]).toMatchObject({ task_id: task, trigger: 'assignment' })
    expect(new Date(queued[0]!.not_before!).toISOString()).toBe(reset)
    const replacement = await getRun(s, queued[0]!.id)
    expect(Date.parse(replacement.body.not_before)).toBe(Date.parse(reset))
    expect(replacement.body.transcript[0].text).toContain(`met anthropic's usage limit: waits until ${reset}`)
    // The task went back to todo for the replacement to take up.
    expect((await t.ctx.db.one('SELECT status FROM tasks WHERE id = $1', [task]))!.status).toBe('todo')

    expect((await claim(s)).status).toBe(204) // before the reset: nothing to claim
    await resetPassed(queued[0]!.id)
    const later = await claim(s)
    expect(later.status).toBe(200)
    expect(later.body.run.id).toBe(queued[0]!.id)
    expect(later.body.task.id).toBe(task)
  })

  it('writes the error in words when the runner gave none, and waits a minute when the reset is unknown', async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s)
    await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body: { reason: 'look around' } })
    const run = (await claim(s)).body.run
    const ended = await report(s, run.id, { status: 'failed', limit: { provider: 'openai', kind: 'rate_limit', reset_at: null } })
    expect(ended.status).toBe(200)
    expect(ended.body.error).toMatch(/^openai: rate limit reached; the work is queued again for after \d{4}-/)
    const [queued] = await queuedOf(agent)
    const wait = new Date(queued!.not_before!).getTime() - Date.now()
    expect(wait).toBeGreaterThan(50_000)
    expect(wait).toBeLessThan(61_000)
    // The replacement keeps what the agent was woken for.
    expect((await getRun(s, queued!.id)).body.transcript[0].text).toContain('look around')
  })

  it('is audited as failed with the error, and the replacement as queued by the system', async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s, { name: 'Bo' })
    await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token })
    const run = (await claim(s)).body.run
    await report(s, run.id, { status: 'failed', limit: { provider: 'google', kind: 'rate_limit', reset_at: inAnHour() } })
    const trail = await auditTrail(t.ctx, s.companyId)
    const [queued] = await queuedOf(agent)
    expect(trail).toEqual(expect.arrayContaining([
      expect.objectContaining({ verb: 'failed', entity_id: run.id, changes: expect.objectContaining({ error: [null, expect.stringContaining('google')] }) }),
      expect.objectContaining({ verb: 'queued', entity_id: queued!.id, actor_type: 'system', actor_name: 'Bo' }),
    ]))
  })

  it('refuses limit on a report that does not fail the run, changing nothing', async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s)
    await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token })
    const run = (await claim(s)).body.run
    const r = await report(s, run.id, { status: 'succeeded', limit: { provider: 'anthropic', kind: 'rate_limit', reset_at: null } })
    expect(r.status).toBe(422)
    expect(r.body.error.code).toBe('VALIDATION_ERROR')
    expect(r.body.error.message).toContain('limit')
    expect((await getRun(s, run.id)).body.status).toBe('running')
    expect(await queuedOf(agent)).toEqual([])
  })

  it('an ordinary failure still puts the agent in error and queues nothing', async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s)
    await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token })
    const run = (await claim(s)).body.run
    await report(s, run.id, { status: 'failed', error: 'crashed' })
    expect(await agentStatus(agent)).toBe('error')
    expect(await queuedOf(agent)).toEqual([])
  })

  it('scheduled heartbeats reuse the deferred run instead of piling up, and it keeps waiting', async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s, { name: 'Hb' })
    const cron = '*/5 * * * *'
    await t.ctx.db.query('UPDATE agents SET heartbeat_cron = $2 WHERE id = $1', [agent, cron])
    const def = { kind: 'heartbeat' as const, id: agent, companyId: s.companyId, cron }
    let minute = 0
    const slot = () => ({ at: new Date(Date.UTC(2031, 0, 1, 0, (minute += 5))), windowMs: 1000 })
    expect(await fireHeartbeat(t.ctx, def, slot())).toBe('fired')
    const run = (await claim(s)).body.run
    const reset = inAnHour()
    await report(s, run.id, { status: 'failed', limit: { provider: 'anthropic', kind: 'usage_limit', reset_at: reset } })
    for (let i = 0; i < 3; i++) expect(await fireHeartbeat(t.ctx, def, slot())).toBe('fired')
    const queued = await queuedOf(agent)
    expect(queued).toHaveLength(1)
    expect(new Date(queued[0]!.not_before!).toISOString()).toBe(reset)
    expect((await claim(s)).status).toBe(204)
  })

  it('a routine whose run waits for a reset fires no new task until then', async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s)
    const routine = await call(t.app, 'POST', `${s.base}/routines`, {
      token: s.user.token, body: { title: 'Daily digest', agent_id: agent, cron: '0 9 * * *' },
    })
    expect(routine.status).toBe(201)
    const def = { kind: 'routine' as const, id: routine.body.id, companyId: s.companyId, cron: '0 9 * * *' }
    expect(await fireRoutine(t.ctx, def, { at: new Date('2031-01-01T09:00:00Z'), windowMs: 1000 })).toBe(true)
    const run = (await claim(s)).body.run
    await report(s, run.id, { status: 'failed', limit: { provider: 'openai', kind: 'usage_limit', reset_at: inAnHour() } })
    expect(await fireRoutine(t.ctx, def, { at: new Date('2031-01-02T09:00:00Z'), windowMs: 1000 })).toBe(false)
    const [queued] = await queuedOf(agent)
    expect(await queuedOf(agent)).toHaveLength(1)
    await resetPassed(queued!.id)
    expect(await fireRoutine(t.ctx, def, { at: new Date('2031-01-03T09:00:00Z'), windowMs: 1000 })).toBe(true)
  })
})

describe('billing', () => {
  it('is api unless the runner reports the run was paid by a plan', async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s)
    await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token })
    const run = (await claim(s)).body.run
    expect(run.billing).toBe('api')
    const done = await report(s, run.id, { status: 'succeeded', tokens_in: 1000, cost_cents: 12, billing: 'plan' })
    expect(done.body).toMatchObject({ billing: 'plan', cost_cents: 12 })
    expect((await getRun(s, run.id)).body.billing).toBe('plan')
    const bad = await report(s, run.id, { billing: 'free' })
    expect(bad.status).toBe(422)
  })
})

describe('costs by billing', () => {
  it('show plan-equivalent spend apart from API spend: in all, by agent and by day, following a run whose billing changes', async () => {
    const s = await seedCompany(t)
    const onKey = await seedAgent(t, s, { name: 'On a key' })
    const onPlan = await seedAgent(t, s, { name: 'On a plan' })
    const runOf = async (agent: string, body: Record<string, unknown>) => {
      await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token })
      const run = (await claim(s, { agent_ids: [agent] })).body.run
      expect((await report(s, run.id, body)).status).toBe(200)
      return run.id as string
    }
    await runOf(onKey, { status: 'succeeded', cost_cents: 12 })
    // Usage reported while running (billing not said yet), then the final report says it was a plan.
    const planRun = await runOf(onPlan, { status: 'running', cost_cents: 20 })
    expect((await report(s, planRun, { status: 'succeeded', cost_cents: 30, billing: 'plan' })).status).toBe(200)

    const costs = (await call(t.app, 'GET', `${s.base}/costs`, { token: s.user.token })).body
    expect([costs.total_cents, costs.plan_cents]).toEqual([42, 30])
    expect(costs.by_agent.map((a: any) => [a.name, a.cost_cents, a.plan_cents])).toEqual([['On a plan', 30, 30], ['On a key', 12, 0]])
    const today = new Date().toISOString().slice(0, 10)
    expect(costs.by_day.find((d: any) => d.date === today)).toEqual({ date: today, cost_cents: 42, plan_cents: 30 })
    expect(costs.by_day.filter((d: any) => d.date !== today).every((d: any) => d.cost_cents === 0 && d.plan_cents === 0)).toBe(true)

    // A run whose billing alone changes (a row corrected by hand) moves its cost between the two.
    await t.ctx.db.query(`UPDATE runs SET billing = 'api' WHERE id = $1`, [planRun])
    const after = (await call(t.app, 'GET', `${s.base}/costs`, { token: s.user.token })).body
    expect([after.total_cents, after.plan_cents]).toEqual([42, 0])
  })
})

describe('runner cool-downs', () => {
  it('are shown in GET /runners as the last claim or heartbeat said, without the ones whose reset has passed', async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s)
    const until = inAnHour()
    const past = new Date(Date.now() - 1000).toISOString()
    expect((await claim(s, { runner_id: 'cool', cooldowns: [{ provider: 'openai', until }, { provider: 'anthropic', until: past }] })).status).toBe(204)
    let list = (await call(t.app, 'GET', `${s.base}/runners`, { token: s.user.token })).body
    expect(list).toEqual([expect.objectContaining({ runner_id: 'cool', cooldowns: [{ provider: 'openai', until }] })])

    await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token })
    const run = (await claim(s, { runner_id: 'cool', cooldowns: [] })).body.run
    const later = new Date(Date.now() + 7200_000).toISOString()
    const hb = await call(t.app, 'POST', `${s.base}/runs/${run.id}/heartbeat`, {
      token: s.user.token, body: { runner_id: 'cool', cooldowns: [{ provider: 'google', until: later }] },
    })
    expect(hb.status).toBe(200)
    list = (await call(t.app, 'GET', `${s.base}/runners`, { token: s.user.token })).body
    expect(list[0].cooldowns).toEqual([{ provider: 'google', until: later }])
    const bad = await claim(s, { runner_id: 'cool', cooldowns: [{ provider: 'Not A Provider!', until }] })
    expect(bad.status).toBe(422)
  })
})

describe('adapter_config.fallback', () => {
  it('is kept for a CLI agent, and a fallback naming another adapter than the agent\'s (another CLI too) is refused', async () => {
    const s = await seedCompany(t)
    const hire = (adapter_config: Record<string, unknown>) => call(t.app, 'POST', `${s.base}/agents`, {
      token: s.user.token, body: { name: `Fb ${Math.random().toString(36).slice(2, 7)}`, adapter: 'agent_cli_1', adapter_config },
    })
    const ok = await hire({ model: 'claude-opus-4-1', fallback: [{ model: 'claude-sonnet-4-5' }, { model: 'claude-haiku-4-5', adapter: 'agent_cli_1' }] })
    expect(ok.status).toBe(201)
    expect(ok.body.adapter_config.fallback).toEqual([{ model: 'claude-sonnet-4-5' }, { model: 'claude-haiku-4-5', adapter: 'agent_cli_1' }])
    const bad = await hire({ fallback: [{ model: 'x', adapter: 'http' }] })
    expect(bad.status).toBe(422)
    expect(JSON.stringify(bad.body.error)).toContain('adapter_config.fallback.0.adapter')
    const extra = await hire({ fallback: [{ model: 'x', temperature: 1 }] })
    expect(extra.status).toBe(422)
    // Another CLI: a run cannot switch CLIs, so it is refused at once rather than left out when the run comes.
    const otherCli = await hire({ model: 'claude-opus-4-1', fallback: [{ model: 'claude-sonnet-4-5' }, { model: 'gpt-5-codex', adapter: 'agent_cli_2' }] })
    expect(otherCli.status).toBe(422)
    expect(otherCli.body.error.details.errors).toEqual([expect.objectContaining({
      loc: ['body', 'adapter_config', 'fallback', '1', 'adapter'],
      message: 'A fallback model runs on the agent\'s own adapter (agent_cli_1), not on agent_cli_2: a run cannot switch to another CLI. Leave adapter out, or hire another agent on that CLI',
    })])
    // Nor by an update: moving the agent to another CLI with a fallback naming the old one.
    const moved = await call(t.app, 'PATCH', `${s.base}/agents/${ok.body.id}`, { token: s.user.token, body: { adapter: 'agent_cli_2' } })
    expect(moved.status).toBe(422)
    expect(JSON.stringify(moved.body.error)).toContain('adapter_config.fallback.1.adapter')
  })
})
