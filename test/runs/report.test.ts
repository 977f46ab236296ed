import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, type TestApp, testApp } from '../helpers.ts'
import { auditTrail, backdateLease, captureEvents, type Seeded, seedAgent, seedCompany, seedTask } from './seed.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp({ runLeaseSeconds: 60 })
})
afterAll(async () => t?.close())

/** A company with one agent whose run has been claimed by runner `r1`. */
async function runningRun() {
  const s = await seedCompany(t)
  const agent = await seedAgent(t, s, { name: 'Ada' })
  const woken = await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body: { reason: 'go' } })
  const claimed = await call(t.app, 'POST', `${s.base}/runs/claim`, { token: s.user.token, body: { runner_id: 'r1' } })
  expect(claimed.body.run.id).toBe(woken.body.id)
  return { s, agent, runId: woken.body.id as string }
}

function report(s: Seeded, runId: string, body: Record<string, unknown>) {
  return call(t.app, 'PATCH', `${s.base}/runs/${runId}`, { token: s.user.token, body })
}

async function agentStatus(agent: string) {
  return (await t.ctx.db.one('SELECT status FROM agents WHERE id = $1', [agent]))!.status
}

describe('PATCH /runs/{run_id} (report)', () => {
  it('sets running totals, appends transcript entries and publishes run.updated', async () => {
    const { s, agent, runId } = await runningRun()
    const events = captureEvents(t.ctx, s.companyId)
    const first = await report(s, runId, {
      runner_id: 'r1', tokens_in: 10, tokens_out: 5, cost_cents: 1,
      transcript: [{ text: 'hello' }, { text: 'ls', role: 'tool', timestamp: '2026-01-01T00:00:00Z' }],
    })
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({ id: runId, status: 'running', tokens_in: 10, tokens_out: 5, cost_cents: 1 })
    expect(first.body.transcript).toBeUndefined()
    const second = await report(s, runId, { runner_id: 'r1', tokens_in: 30, cost_cents: 3, summary: 'half way', transcript: [{ text: 'more' }] })
    expect(second.body).toMatchObject({ tokens_in: 30, tokens_out: 5, cost_cents: 3, summary: 'half way' })
    expect(events.filter((e) => e.type === 'run.updated')).toEqual([
      { type: 'run.updated', id: runId, agent_id: agent, status: 'running' },
      { type: 'run.updated', id: runId, agent_id: agent, status: 'running' },
    ])
    const got = await call(t.app, 'GET', `${s.base}/runs/${runId}`, { token: s.user.token })
    expect(got.body.transcript.map((e: any) => [e.role, e.text])).toEqual([['system', 'go'], ['agent', 'hello'], ['tool', 'ls'], ['agent', 'more']])
    expect(got.body.transcript[1].timestamp).toMatch(/^\d{4}-\d\d-\d\dT/)
    expect(got.body.transcript[2].timestamp).toBe('2026-01-01T00:00:00Z')
  })

  it('refreshes the lease', async () => {
    const { s, runId } = await runningRun()
    await backdateLease(t.ctx, runId, 50)
    await report(s, runId, { runner_id: 'r1' })
    const row = await t.ctx.db.one("SELECT heartbeat_at > now() - interval '5 seconds' AS fresh FROM runs WHERE id = $1", [runId])
    expect(row!.fresh).toBe(true)
  })

  it('succeeded: stamps ended_at, audits, and the agent goes idle', async () => {
    const { s, agent, runId } = await runningRun()
    const events = captureEvents(t.ctx, s.companyId)
    const r = await report(s, runId, { runner_id: 'r1', status: 'succeeded', summary: 'done' })
    expect(r.body).toMatchObject({ status: 'succeeded', summary: 'done' })
    expect(r.body.ended_at).toBeTruthy()
    expect(await agentStatus(agent)).toBe('idle')
    expect(events).toEqual(expect.arrayContaining([
      { type: 'run.updated', id: runId, agent_id: agent, status: 'succeeded' },
      { type: 'agent.updated', id: agent },
    ]))
    const audit = await auditTrail(t.ctx, s.companyId)
    expect(audit).toEqual(expect.arrayContaining([
      expect.objectContaining({ verb: 'succeeded', entity_id: runId, actor_type: 'system', changes: { status: ['running', 'succeeded'] } }),
    ]))
  })

  it('a finishing report writes the same audit event and agent move with or without a budget', async () => {
    // Without a budget the finish is one statement; with one, a transaction that also checks it.
    const outcomes = []
    for (const budget of [0, 100_000]) {
      const s = await seedCompany(t)
      const agent = await seedAgent(t, s, { name: 'Grace', budget })
      const woken = await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body: {} })
      await call(t.app, 'POST', `${s.base}/runs/claim`, { token: s.user.token, body: { runner_id: 'r1' } })
      const events = captureEvents(t.ctx, s.companyId)
      const r = await report(s, woken.body.id, { runner_id: 'r1', status: 'failed', error: 'out of memory', cost_cents: 7 })
      expect(r.status).toBe(200)
      const audit = await t.ctx.db.one<Record<string, unknown>>(
        `SELECT verb, actor_type, actor_name, actor_user_id, label, changes FROM audit_events WHERE entity_id = $1 AND verb = 'failed'`,
        [woken.body.id],
      )
      outcomes.push({ audit, agent: await agentStatus(agent), events: events.map((e) => e.type), user: s.user })
    }
    for (const o of outcomes) {
      expect(o.audit).toEqual({
        verb: 'failed', actor_type: 'system', actor_name: 'Grace', actor_user_id: null, label: 'Grace (manual)',
        changes: { status: ['running', 'failed'], error: [null, 'out of memory'] },
      })
      expect(o.agent).toBe('error')
      expect(o.events).toEqual(['agent.updated', 'run.updated'])
    }
  })

  it('failed: the agent goes to error; a later running report of another run brings it back', async () => {
    const { s, agent, runId } = await runningRun()
    const r = await report(s, runId, { runner_id: 'r1', status: 'failed', error: 'boom' })
    expect(r.body).toMatchObject({ status: 'failed', error: 'boom' })
    expect(await agentStatus(agent)).toBe('error')
    await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body: {} })
    const claimed = await call(t.app, 'POST', `${s.base}/runs/claim`, { token: s.user.token, body: { runner_id: 'r1' } })
    expect(claimed.body.agent.status).toBe('running')
    // An agent paused and resumed (idle) while its run is running follows a `running` report.
    await call(t.app, 'POST', `${s.base}/agents/${agent}/pause`, { token: s.user.token })
    await call(t.app, 'POST', `${s.base}/agents/${agent}/resume`, { token: s.user.token })
    expect(await agentStatus(agent)).toBe('idle')
    await report(s, claimed.body.run.id, { runner_id: 'r1', status: 'running' })
    expect(await agentStatus(agent)).toBe('running')
  })

  it('a paused agent stays paused when its run ends', async () => {
    const { s, agent, runId } = await runningRun()
    await call(t.app, 'POST', `${s.base}/agents/${agent}/pause`, { token: s.user.token })
    await report(s, runId, { runner_id: 'r1', status: 'succeeded' })
    expect(await agentStatus(agent)).toBe('paused')
  })

  it('answers RUN_LEASE_LOST for another runner, INVALID_STATE for queued, RUN_FINISHED once finished', async () => {
    const { s, runId } = await runningRun()
    const foreign = await report(s, runId, { runner_id: 'r2', cost_cents: 5 })
    expect(foreign.status).toBe(409)
    expect(foreign.body.error.code).toBe('RUN_LEASE_LOST')
    const queued = await report(s, runId, { runner_id: 'r1', status: 'queued' })
    expect(queued.status).toBe(400)
    expect(queued.body.error.code).toBe('INVALID_STATE')
    const bad = await report(s, runId, { runner_id: 'r1', status: 'cancelled' })
    expect(bad.status).toBe(422)
    const negative = await report(s, runId, { runner_id: 'r1', tokens_in: -1, cost_cents: '3' })
    expect(negative.status).toBe(422)
    expect(negative.body.error.details.errors.map((e: any) => e.loc[1]).sort()).toEqual(['cost_cents', 'tokens_in'])
    // An amount beyond any real one, or a transcript timestamp that is not one, is named.
    const huge = await report(s, runId, { runner_id: 'r1', tokens_out: 1e20 })
    expect(huge.status).toBe(422)
    expect(huge.body.error.message).toMatch(/^tokens_out: Input should be less than or equal to 1000000000000/)
    const stamp = await report(s, runId, { runner_id: 'r1', transcript: [{ text: 'hello', timestamp: 'yesterday-ish' }] })
    expect(stamp.status).toBe(422)
    expect(stamp.body.error.message).toMatch(/^transcript\.0\.timestamp: /)
    expect((await report(s, runId, { runner_id: 'r1', transcript: [{ text: 'hello', timestamp: '2026-11-28T21:00:00.5Z' }] })).status).toBe(200)
    const row = await t.ctx.db.one('SELECT cost_cents FROM runs WHERE id = $1', [runId])
    expect(row!.cost_cents).toBe(0)
    await report(s, runId, { runner_id: 'r1', status: 'succeeded' })
    const again = await report(s, runId, { runner_id: 'r1', summary: 'late' })
    expect(again.status).toBe(400)
    expect(again.body.error.code).toBe('RUN_FINISHED')
  })

  it('a queued run that no runner holds is RUN_LEASE_LOST; an unknown run 404', async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s)
    const woken = await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body: {} })
    const r = await report(s, woken.body.id, { runner_id: 'r1' })
    expect(r.status).toBe(409)
    expect(r.body.error.code).toBe('RUN_LEASE_LOST')
    const missing = await report(s, '00000000-0000-4000-8000-000000000000', { runner_id: 'r1' })
    expect(missing.status).toBe(404)
    expect(missing.body.error.message).toBe('Run not found')
  })
})

describe('POST /runs/{run_id}/heartbeat', () => {
  it('keeps the lease, answers the run without transcript and publishes nothing', async () => {
    const { s, runId } = await runningRun()
    await backdateLease(t.ctx, runId, 30)
    const events = captureEvents(t.ctx, s.companyId)
    const r = await call(t.app, 'POST', `${s.base}/runs/${runId}/heartbeat`, { token: s.user.token, body: { runner_id: 'r1' } })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ id: runId, status: 'running' })
    expect(r.body.transcript).toBeUndefined()
    expect(Date.parse(r.body.heartbeat_at)).toBeGreaterThan(Date.parse(r.body.started_at))
    expect(events).toEqual([])
  })

  it('is RUN_LEASE_LOST for another runner or a run that is not running', async () => {
    const { s, runId } = await runningRun()
    const foreign = await call(t.app, 'POST', `${s.base}/runs/${runId}/heartbeat`, { token: s.user.token, body: { runner_id: 'r2' } })
    expect(foreign.status).toBe(409)
    expect(foreign.body.error.code).toBe('RUN_LEASE_LOST')
    await report(s, runId, { runner_id: 'r1', status: 'succeeded' })
    const done = await call(t.app, 'POST', `${s.base}/runs/${runId}/heartbeat`, { token: s.user.token, body: { runner_id: 'r1' } })
    expect(done.status).toBe(409)
    expect(done.body.error.code).toBe('RUN_LEASE_LOST')
  })
})

describe('lease expiry', () => {
  it('expire-stale fails runs past the lease, by the system, and the agent goes to error', async () => {
    const { s, agent, runId } = await runningRun()
    const fresh = await runningRun()
    await backdateLease(t.ctx, runId, 61)
    const events = captureEvents(t.ctx, s.companyId)
    const r = await call(t.app, 'POST', `${s.base}/runs/expire-stale`, { token: s.user.token })
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ expired: [runId] })
    const run = await call(t.app, 'GET', `${s.base}/runs/${runId}`, { token: s.user.token })
    expect(run.body).toMatchObject({ status: 'failed', error: 'The runner stopped reporting (lease expired)' })
    expect(run.body.ended_at).toBeTruthy()
    expect(await agentStatus(agent)).toBe('error')
    expect(events).toEqual(expect.arrayContaining([
      { type: 'run.updated', id: runId, agent_id: agent, status: 'failed' },
      { type: 'agent.updated', id: agent },
    ]))
    const audit = await auditTrail(t.ctx, s.companyId)
    expect(audit).toEqual(expect.arrayContaining([
      expect.objectContaining({ verb: 'failed', entity_type: 'run', entity_id: runId, actor_type: 'system', actor_name: 'Ada' }),
    ]))
    // Another company's run is not touched by this company's sweep, nor a fresh one.
    const other = await t.ctx.db.one('SELECT status FROM runs WHERE id = $1', [fresh.runId])
    expect(other!.status).toBe('running')
    const again = await call(t.app, 'POST', `${s.base}/runs/expire-stale`, { token: s.user.token })
    expect(again.body).toEqual({ expired: [] })
  })

  it('a lease that expires mid-report answers RUN_FINISHED to the report and RUN_LEASE_LOST to the heartbeat', async () => {
    const { s, agent, runId } = await runningRun()
    expect((await report(s, runId, { runner_id: 'r1', transcript: [{ text: 'working' }] })).status).toBe(200)
    await backdateLease(t.ctx, runId, 61)
    const beat = await call(t.app, 'POST', `${s.base}/runs/${runId}/heartbeat`, { token: s.user.token, body: { runner_id: 'r1' } })
    expect(beat.status).toBe(409)
    expect(beat.body.error.code).toBe('RUN_LEASE_LOST')
    const late = await report(s, runId, { runner_id: 'r1', status: 'succeeded' })
    expect(late.status).toBe(400)
    expect(late.body.error.code).toBe('RUN_FINISHED')
    const row = await t.ctx.db.one('SELECT status, error FROM runs WHERE id = $1', [runId])
    expect(row).toMatchObject({ status: 'failed', error: 'The runner stopped reporting (lease expired)' })
    expect(await agentStatus(agent)).toBe('error')
  })

  it('a report arriving after the lease ran out (before any sweep) is RUN_FINISHED and fails the run', async () => {
    const { s, runId } = await runningRun()
    await backdateLease(t.ctx, runId, 61)
    const late = await report(s, runId, { runner_id: 'r1', cost_cents: 4 })
    expect(late.body.error.code).toBe('RUN_FINISHED')
    const row = await t.ctx.db.one('SELECT status, cost_cents FROM runs WHERE id = $1', [runId])
    expect(row).toMatchObject({ status: 'failed', cost_cents: 0 })
  })
})

describe('POST /runs/{run_id}/cancel', () => {
  it('cancels a queued run', async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s)
    const woken = await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body: {} })
    const events = captureEvents(t.ctx, s.companyId)
    const r = await call(t.app, 'POST', `${s.base}/runs/${woken.body.id}/cancel`, { token: s.user.token })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ status: 'cancelled' })
    expect(r.body.ended_at).toBeTruthy()
    expect(events).toContainEqual({ type: 'run.updated', id: woken.body.id, agent_id: agent, status: 'cancelled' })
    expect(await agentStatus(agent)).toBe('idle')
    const audit = await auditTrail(t.ctx, s.companyId)
    expect(audit).toContainEqual(expect.objectContaining({ verb: 'cancelled', entity_id: woken.body.id, changes: { status: ['queued', 'cancelled'] } }))
  })

  it('cancels a running run (agent idle, runner told RUN_FINISHED) and refuses a finished one', async () => {
    const { s, agent, runId } = await runningRun()
    const r = await call(t.app, 'POST', `${s.base}/runs/${runId}/cancel`, { token: s.user.token })
    expect(r.body.status).toBe('cancelled')
    expect(await agentStatus(agent)).toBe('idle')
    const late = await report(s, runId, { runner_id: 'r1', status: 'succeeded' })
    expect(late.body.error.code).toBe('RUN_FINISHED')
    const again = await call(t.app, 'POST', `${s.base}/runs/${runId}/cancel`, { token: s.user.token })
    expect(again.status).toBe(400)
    expect(again.body.error.code).toBe('RUN_FINISHED')
    const other = await seedCompany(t)
    const foreign = await call(t.app, 'POST', `${other.base}/runs/${runId}/cancel`, { token: other.user.token })
    expect(foreign.status).toBe(404)
  })
})

describe('a long transcript', () => {
  it('is answered from a given entry on, with the count of all its entries, for a viewer that holds the first ones', async () => {
    const { s, runId } = await runningRun()
    const lines = ['one', 'two', 'three'].map((text) => ({ role: 'agent', text }))
    expect((await report(s, runId, { runner_id: 'r1', status: 'running', transcript: lines })).status).toBe(200)
    const get = (query = '') => call(t.app, 'GET', `${s.base}/runs/${runId}${query}`, { token: s.user.token })
    const whole = await get()
    // The wake's reason, then the claim's line, then the three reported.
    const texts = whole.body.transcript.map((e: any) => e.text)
    expect(texts.slice(-3)).toEqual(['one', 'two', 'three'])
    expect(whole.body.transcript_count).toBe(texts.length)
    const tail = await get(`?transcript_from=${texts.length - 2}`)
    expect(tail.status).toBe(200)
    expect(tail.body.transcript.map((e: any) => e.text)).toEqual(['two', 'three'])
    expect(tail.body.transcript[1]).toEqual(whole.body.transcript.at(-1))
    expect(tail.body.transcript_count).toBe(texts.length)
    expect(tail.body.status).toBe('running')
    expect((await get(`?transcript_from=${texts.length + 5}`)).body).toMatchObject({ transcript: [], transcript_count: texts.length })
    expect((await get('?transcript_from=0')).body.transcript).toEqual(whole.body.transcript)
    for (const bad of ['-1', 'x', '1.5']) {
      const refused = await get(`?transcript_from=${bad}`)
      expect(refused.status, bad).toBe(422)
      expect(refused.body.error.code).toBe('VALIDATION_ERROR')
    }
  })
})

describe('GET /runs', () => {
  it('lists newest first without transcripts, with filters and limits', async () => {
    const s = await seedCompany(t)
    const a = await seedAgent(t, s)
    const b = await seedAgent(t, s)
    const task = await seedTask(t, s)
    const ids: string[] = []
    for (const [agent, body] of [[a, {}], [b, {}], [a, { task_id: task }]] as const) {
      ids.push((await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body })).body.id)
    }
    await call(t.app, 'POST', `${s.base}/runs/${ids[1]}/cancel`, { token: s.user.token })
    const list = (q = '') => call(t.app, 'GET', `${s.base}/runs${q}`, { token: s.user.token })
    const all = await list()
    expect(all.body.map((r: any) => r.id)).toEqual([...ids].reverse())
    expect(all.body[0].transcript).toBeUndefined()
    expect((await list(`?agent_id=${a}`)).body.map((r: any) => r.id)).toEqual([ids[2], ids[0]])
    expect((await list(`?task_id=${task}`)).body.map((r: any) => r.id)).toEqual([ids[2]])
    expect((await list('?status=cancelled')).body.map((r: any) => r.id)).toEqual([ids[1]])
    // Several statuses: merged newest first, the limit over all of them, other filters kept.
    expect((await list('?status=cancelled&status=queued')).body.map((r: any) => r.id)).toEqual([...ids].reverse())
    expect((await list('?status=queued&status=cancelled&limit=2')).body.map((r: any) => r.id)).toEqual([ids[2], ids[1]])
    expect((await list(`?status=cancelled&status=queued&agent_id=${a}`)).body.map((r: any) => r.id)).toEqual([ids[2], ids[0]])
    expect((await list('?status=failed&status=succeeded')).body).toEqual([])
    expect((await list('?limit=1')).body.map((r: any) => r.id)).toEqual([ids[2]])
    expect((await list('?limit=501')).status).toBe(422)
    expect((await list('?limit=0')).status).toBe(422)
    expect((await list('?status=bogus')).status).toBe(422)
    expect((await list('?agent_id=nope')).status).toBe(422)
  })

  it("names each listed run's task by key and title: the runs list, the dashboard's active runs, the inbox's failed runs", async () => {
    const s = await seedCompany(t, { prefix: 'NAM' })
    const [a, b, c] = [await seedAgent(t, s), await seedAgent(t, s), await seedAgent(t, s)]
    const task = await seedTask(t, s, { title: 'Write the launch post' })
    const gone = await seedTask(t, s, { title: 'Soon deleted' })
    const wake = async (agent: string, body: object) =>
      (await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body })).body.id as string
    const onTask = await wake(a, { task_id: task })
    const bare = await wake(b, {})
    const onGone = await wake(c, { task_id: gone })
    // The run on the task fails, so that the inbox lists it too.
    expect((await call(t.app, 'POST', `${s.base}/runs/claim`, { token: s.user.token, body: { runner_id: 'r1', agent_ids: [a] } })).status).toBe(200)
    expect((await report(s, onTask, { runner_id: 'r1', status: 'failed', error: 'no network' })).status).toBe(200)
    expect((await call(t.app, 'DELETE', `${s.base}/tasks/${gone}`, { token: s.user.token })).status).toBe(204)
    // Deleting the task cancelled its queued run; another agent is woken on the first task.
    const again = await wake(c, { task_id: task })
    const key = (await call(t.app, 'GET', `${s.base}/tasks/${task}`, { token: s.user.token })).body.key
    expect(key).toMatch(/^NAM-\d+$/)
    const named = (runs: any[]) => Object.fromEntries(runs.map((r) => [r.id, [r.task_key, r.task_title]]))

    const list = await call(t.app, 'GET', `${s.base}/runs`, { token: s.user.token })
    expect(named(list.body)).toEqual({
      [onTask]: [key, 'Write the launch post'], [bare]: [null, null], [onGone]: [null, null], [again]: [key, 'Write the launch post'],
    })
    // Several statuses take another statement; so does a filter.
    expect(named((await call(t.app, 'GET', `${s.base}/runs?status=failed&status=queued`, { token: s.user.token })).body)[onTask]).toEqual([key, 'Write the launch post'])
    expect(named((await call(t.app, 'GET', `${s.base}/runs?task_id=${task}`, { token: s.user.token })).body)).toEqual({
      [onTask]: [key, 'Write the launch post'], [again]: [key, 'Write the launch post'],
    })
    const dashboard = await call(t.app, 'GET', `${s.base}/dashboard`, { token: s.user.token })
    expect(named(dashboard.body.active_runs)).toEqual({ [bare]: [null, null], [again]: [key, 'Write the launch post'] })
    const inbox = await call(t.app, 'GET', `${s.base}/inbox`, { token: s.user.token })
    expect(named(inbox.body.failed_runs)).toEqual({ [onTask]: [key, 'Write the launch post'] })
    // A single run is answered as the spec gives it.
    expect((await call(t.app, 'GET', `${s.base}/runs/${onTask}`, { token: s.user.token })).body).not.toHaveProperty('task_key')
  })

  it('GET /runs/{run_id} is 404 for another company', async () => {
    const { runId } = await runningRun()
    const other = await seedCompany(t)
    const r = await call(t.app, 'GET', `${other.base}/runs/${runId}`, { token: other.user.token })
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Run not found')
  })
})
