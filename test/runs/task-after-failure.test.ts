import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, privateApp, rowsRead, type TestApp, testApp } from '../helpers.ts'
import { auditTrail, backdateLease, captureEvents, type Seeded, seedAgent, seedCompany, seedTask } from './seed.ts'

// Tasks after a failed run (API-DECISIONS.md): a run that moved its task to in_progress at
// claim and ends failed or cancelled puts the task back where it was.

const LEASE = 60
let t: TestApp
beforeAll(async () => {
  t = await testApp({ runLeaseSeconds: LEASE })
})
afterAll(async () => t?.close())

const post = (s: Seeded, path: string, body: unknown = {}) => call(t.app, 'POST', `${s.base}${path}`, { token: s.user.token, body })
const taskStatus = async (s: Seeded, task: string) => (await call(t.app, 'GET', `${s.base}/tasks/${task}`, { token: s.user.token })).body.status

/** A company whose agent Ada has a run of `task` (in `status`) claimed by runner r1. */
async function claimed(status: string, options: { budget?: number } = {}) {
  const s = await seedCompany(t, { prefix: 'BAK' })
  const agent = await seedAgent(t, s, { name: 'Ada', budget: options.budget })
  const task = await seedTask(t, s, { title: 'Ship it', status })
  expect((await post(s, `/agents/${agent}/wake`, { task_id: task })).status).toBe(201)
  const claim = await post(s, '/runs/claim', { runner_id: 'r1' })
  expect(claim.status).toBe(200)
  return { s, agent, task, runId: claim.body.run.id as string }
}

const report = (s: Seeded, runId: string, body: Record<string, unknown>) =>
  call(t.app, 'PATCH', `${s.base}/runs/${runId}`, { token: s.user.token, body: { runner_id: 'r1', ...body } })

describe('a task whose run fails or is cancelled', () => {
  it('goes back from in_progress to todo when the run fails (system on behalf of the agent, task.updated)', async () => {
    const { s, task, runId } = await claimed('todo')
    expect(await taskStatus(s, task)).toBe('in_progress')
    const events = captureEvents(t.ctx, s.companyId)
    expect((await report(s, runId, { status: 'failed', error: 'boom' })).status).toBe(200)
    expect(await taskStatus(s, task)).toBe('todo')
    const moves = (await auditTrail(t.ctx, s.companyId)).filter((a) => a.entity_type === 'task' && a.verb === 'moved')
    expect(moves.map((a) => [a.actor_type, a.actor_name, a.changes.status])).toEqual([
      ['system', 'Ada', ['todo', 'in_progress']],
      ['system', 'Ada', ['in_progress', 'todo']],
    ])
    expect(events).toContainEqual({ type: 'task.updated', id: task })
  })

  it('goes back to backlog when a person cancels the run, and for an agent with a budget too', async () => {
    const { s, task, runId } = await claimed('backlog', { budget: 10_000 })
    expect((await post(s, `/runs/${runId}/cancel`)).status).toBe(200)
    expect(await taskStatus(s, task)).toBe('backlog')
    const b = await claimed('todo', { budget: 10_000 })
    expect((await report(b.s, b.runId, { status: 'failed' })).status).toBe(200)
    expect(await taskStatus(b.s, b.task)).toBe('todo')
  })

  it('goes back when the run expires and when its agent is terminated', async () => {
    const a = await claimed('todo')
    await backdateLease(t.ctx, a.runId, LEASE + 5)
    expect((await post(a.s, '/runs/expire-stale')).body.expired).toEqual([a.runId])
    expect(await taskStatus(a.s, a.task)).toBe('todo')

    const b = await claimed('backlog')
    expect((await post(b.s, `/agents/${b.agent}/terminate`)).status).toBe(200)
    expect(await taskStatus(b.s, b.task)).toBe('backlog')
  })

  it('stays in_progress when the run succeeds, or when the claim did not move it', async () => {
    const a = await claimed('todo')
    expect((await report(a.s, a.runId, { status: 'succeeded' })).status).toBe(200)
    expect(await taskStatus(a.s, a.task)).toBe('in_progress')

    const b = await claimed('in_progress')
    expect((await report(b.s, b.runId, { status: 'failed' })).status).toBe(200)
    expect(await taskStatus(b.s, b.task)).toBe('in_progress')
  })

  it('is left alone when someone moved it on during the run, or another run of it is still running', async () => {
    const a = await claimed('todo')
    expect((await call(t.app, 'PATCH', `${a.s.base}/tasks/${a.task}`, { token: a.s.user.token, body: { status: 'in_review' } })).status).toBe(200)
    expect((await report(a.s, a.runId, { status: 'failed' })).status).toBe(200)
    expect(await taskStatus(a.s, a.task)).toBe('in_review')

    const b = await claimed('todo')
    const helper = await seedAgent(t, b.s, { name: 'Bob' })
    expect((await post(b.s, `/agents/${helper}/wake`, { task_id: b.task })).status).toBe(201)
    expect((await post(b.s, '/runs/claim', { runner_id: 'r1' })).status).toBe(200)
    expect((await report(b.s, b.runId, { status: 'failed' })).status).toBe(200)
    expect(await taskStatus(b.s, b.task)).toBe('in_progress')
  })
})

describe('a failed run putting its task back', () => {
  it("reads that task's runs, not the whole table, whatever the statistics say of tasks", async () => {
    // A database of its own on one connection, so that its statistics are this test's: taken
    // while the runs that had a task all had the same one, they made the check "does another
    // run of the task run?" look cheapest as a read of every run (632 rows in a test run).
    const own = await privateApp({ runLeaseSeconds: LEASE }, { connections: 1 })
    try {
      const s = await seedCompany(own, { prefix: 'OWN' })
      const agent = await seedAgent(own, s, { name: 'Ada' })
      const busy = await seedTask(own, s, { title: 'Busy', status: 'done' })
      await own.ctx.db.query(
        `INSERT INTO runs (company_id, agent_id, task_id, status, trigger) SELECT $1, $2, $3, 'succeeded', 'manual' FROM generate_series(1, 50)`,
        [s.companyId, agent, busy],
      )
      await own.ctx.db.query('ANALYZE runs')
      await own.ctx.db.query(
        `INSERT INTO runs (company_id, agent_id, status, trigger) SELECT $1, $2, 'cancelled', 'manual' FROM generate_series(1, 600)`,
        [s.companyId, agent],
      )
      const task = await seedTask(own, s, { title: 'Ship it', status: 'todo' })
      const post = (path: string, body: unknown) => call(own.app, 'POST', `${s.base}${path}`, { token: s.user.token, body })
      expect((await post(`/agents/${agent}/wake`, { task_id: task })).status).toBe(201)
      const run = (await post('/runs/claim', { runner_id: 'r1' })).body.run.id as string
      const before = await rowsRead(own.ctx.db, 'runs')
      const failed = await call(own.app, 'PATCH', `${s.base}/runs/${run}`, { token: s.user.token, body: { runner_id: 'r1', status: 'failed' } })
      expect(failed.status).toBe(200)
      expect((await rowsRead(own.ctx.db, 'runs')) - before).toBeLessThan(20)
      expect((await call(own.app, 'GET', `${s.base}/tasks/${task}`, { token: s.user.token })).body.status).toBe('todo')
    } finally {
      await own.close()
    }
  })
})
