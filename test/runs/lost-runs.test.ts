// A run whose runner stopped reporting is failed by its lease (SPEC.md) and done again without
// anyone waking the agent: queued once more for the same agent and task, saying why, and claimed
// by the next runner. Once: a redo that is lost too stays failed. Never for a paused agent or a
// task finished meanwhile.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, type TestApp, testApp } from '../helpers.ts'
import { backdateLease, type Seeded, seedAgent, seedCompany, seedTask } from './seed.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp({ runLeaseSeconds: 60 })
})
afterAll(async () => t?.close())

const claim = (s: Seeded, runner: string) => call(t.app, 'POST', `${s.base}/runs/claim`, { token: s.user.token, body: { runner_id: runner } })
const sweep = (s: Seeded) => call(t.app, 'POST', `${s.base}/runs/expire-stale`, { token: s.user.token })
const runsOf = (s: Seeded, task: string) => call(t.app, 'GET', `${s.base}/runs?task_id=${task}`, { token: s.user.token })

/** A task assigned to a new agent, whose assignment run runner `lost` has claimed. */
async function claimedTask() {
  const s = await seedCompany(t)
  const agent = await seedAgent(t, s, { name: 'Builder' })
  const task = await seedTask(t, s, { title: 'Build it', assignee: agent })
  const claimed = await claim(s, 'lost')
  expect(claimed.status).toBe(200)
  return { s, agent, task, runId: claimed.body.run.id as string }
}

describe('a run lost with its runner', () => {
  it('is failed by its lease and queued again for the same agent and task; the next runner does it', async () => {
    const { s, agent, task, runId } = await claimedTask()
    await backdateLease(t.ctx, runId, 61)
    expect((await sweep(s)).body).toEqual({ expired: [runId] })

    const runs = (await runsOf(s, task)).body
    expect(runs.map((r: any) => [r.id === runId ? 'lost' : 'redo', r.status, r.trigger])).toEqual([['redo', 'queued', 'assignment'], ['lost', 'failed', 'assignment']])
    const redo = await call(t.app, 'GET', `${s.base}/runs/${runs[0].id}`, { token: s.user.token })
    expect(redo.body).toMatchObject({ agent_id: agent, task_id: task })
    expect(redo.body.transcript[0]).toMatchObject({
      role: 'system', text: `Queued again: run ${runId} was lost when its runner stopped reporting (lease expired).`,
    })
    const next = await claim(s, 'survivor')
    expect(next.body.run.id).toBe(runs[0].id)
    expect(next.body.task).toMatchObject({ id: task, status: 'in_progress' })
  })

  it('once: a redo that is lost too stays failed', async () => {
    const { s, task, runId } = await claimedTask()
    await backdateLease(t.ctx, runId, 61)
    await sweep(s)
    const redo = await claim(s, 'second')
    await backdateLease(t.ctx, redo.body.run.id, 61)
    expect((await sweep(s)).body).toEqual({ expired: [redo.body.run.id] })
    expect((await runsOf(s, task)).body.map((r: any) => r.status)).toEqual(['failed', 'failed'])
  })

  it('a lost merge run is done again as a merge, though its task is done', async () => {
    const { s, task, runId } = await claimedTask()
    // As an approval with merge_on_approve leaves it (work/review.ts): the task done, the run a merge.
    await t.ctx.db.query("UPDATE runs SET purpose = 'merge' WHERE id = $1", [runId])
    expect((await call(t.app, 'PATCH', `${s.base}/tasks/${task}`, { token: s.user.token, body: { status: 'done' } })).status).toBe(200)
    await backdateLease(t.ctx, runId, 61)
    expect((await sweep(s)).body).toEqual({ expired: [runId] })
    const redo = await t.ctx.db.one<{ purpose: string; status: string }>('SELECT purpose, status FROM runs WHERE redo_of = $1', [runId])
    expect(redo).toEqual({ purpose: 'merge', status: 'queued' })
  })

  it('not for a paused agent, nor for a task finished meanwhile', async () => {
    const paused = await claimedTask()
    expect((await call(t.app, 'POST', `${paused.s.base}/agents/${paused.agent}/pause`, { token: paused.s.user.token })).status).toBe(200)
    await backdateLease(t.ctx, paused.runId, 61)
    expect((await sweep(paused.s)).body).toEqual({ expired: [paused.runId] })
    expect((await runsOf(paused.s, paused.task)).body.map((r: any) => r.status)).toEqual(['failed'])

    const done = await claimedTask()
    expect((await call(t.app, 'PATCH', `${done.s.base}/tasks/${done.task}`, { token: done.s.user.token, body: { status: 'done' } })).status).toBe(200)
    await backdateLease(t.ctx, done.runId, 61)
    expect((await sweep(done.s)).body).toEqual({ expired: [done.runId] })
    expect((await runsOf(done.s, done.task)).body.map((r: any) => r.status)).toEqual(['failed'])
  })
})
