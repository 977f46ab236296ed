// heartbeat_skip_idle (API-DECISIONS.md "Agent settings beyond the spec"): a scheduled
// heartbeat skips an agent with no todo or in_progress task assigned and no person's comment
// waiting on a blocked task of its own; skips are logged and counted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fireHeartbeat } from '../../src/scheduler/fire.ts'
import { startScheduler } from '../../src/scheduler/scheduler.ts'
import { registry } from '../../src/server/metrics.ts'
import { DAILY, later, makeAgent, makeCompany, privateApp, withCapturedLog } from './setup.ts'

let t: Awaited<ReturnType<typeof privateApp>>
beforeAll(async () => {
  t = await privateApp()
})
afterAll(async () => {
  await t?.close()
})

const runsOf = (agentId: string) => t.ctx.db.many('SELECT id FROM runs WHERE agent_id = $1', [agentId])
let minute = 0
/** A fresh slot each call, so that no call is a duplicate of the last. */
const nextSlot = () => ({ at: new Date(Date.UTC(2031, 0, 1, 0, ++minute)), windowMs: 1000 })

async function skipIdleAgent(companyId: string, cron = '0 * * * *') {
  const agentId = await makeAgent(t.ctx.db, companyId, { name: 'Quiet', heartbeat_cron: cron })
  await t.ctx.db.query('UPDATE agents SET heartbeat_skip_idle = true WHERE id = $1', [agentId])
  return { agentId, def: { kind: 'heartbeat' as const, id: agentId, companyId, cron } }
}

async function task(companyId: string, agentId: string, status: string, number: number): Promise<string> {
  const row = await t.ctx.db.one<{ id: string }>(
    `INSERT INTO tasks (company_id, number, title, status, assignee_agent_id) VALUES ($1, $2, 'Job', $3, $4) RETURNING id`,
    [companyId, number, status, agentId],
  )
  return row!.id
}

describe('heartbeat_skip_idle', () => {
  it('skips an agent with nothing to do, and wakes it once it has an open task', async () => {
    const companyId = await makeCompany(t.ctx.db)
    const { agentId, def } = await skipIdleAgent(companyId)
    expect(await fireHeartbeat(t.ctx, def, nextSlot())).toBe('idle')
    await task(companyId, agentId, 'done', 1)
    expect(await fireHeartbeat(t.ctx, def, nextSlot())).toBe('idle')
    expect(await runsOf(agentId)).toEqual([])
    await task(companyId, agentId, 'todo', 2)
    expect(await fireHeartbeat(t.ctx, def, nextSlot())).toBe('fired')
    expect(await runsOf(agentId)).toHaveLength(1)
  })

  // Ready work wakes it; backlog (not ready: assigning it queues no run), in review (waiting on
  // a person), blocked without a person's new comment, done and cancelled do not.
  const wakes: Record<string, boolean> = {
    todo: true, in_progress: true, backlog: false, in_review: false, blocked: false, done: false, cancelled: false,
  }
  for (const [status, woken] of Object.entries(wakes)) {
    it(`${woken ? 'wakes' : 'skips'} an agent whose only task is ${status}`, async () => {
      const companyId = await makeCompany(t.ctx.db)
      const { agentId, def } = await skipIdleAgent(companyId)
      await task(companyId, agentId, status, 1)
      expect(await fireHeartbeat(t.ctx, def, nextSlot())).toBe(woken ? 'fired' : 'idle')
      expect(await runsOf(agentId)).toHaveLength(woken ? 1 : 0)
    })
  }

  it("wakes an agent for a person's comment on its blocked task made after its last run there", async () => {
    const companyId = await makeCompany(t.ctx.db)
    const { agentId, def } = await skipIdleAgent(companyId)
    const blocked = await task(companyId, agentId, 'blocked', 1)
    const user = await t.ctx.db.one<{ id: string }>(
      `INSERT INTO users (email, name, password_hash) VALUES ('skip-idle-${Date.now()}@example.test', 'Pat', 'x') RETURNING id`,
    )
    // The person's comment was seen by a run that started after it: nothing waiting.
    await t.ctx.db.query(
      `INSERT INTO task_comments (company_id, task_id, body, author_user_id, created_at) VALUES ($1, $2, 'Use the blue one', $3, now() - interval '1 hour')`,
      [companyId, blocked, user!.id],
    )
    await t.ctx.db.query(
      `INSERT INTO runs (company_id, agent_id, task_id, status, trigger, started_at, ended_at)
       VALUES ($1, $2, $3, 'succeeded', 'assignment', now() - interval '30 minutes', now() - interval '29 minutes')`,
      [companyId, agentId, blocked],
    )
    expect(await fireHeartbeat(t.ctx, def, nextSlot())).toBe('idle')
    // An agent's own comment is not a person's.
    await t.ctx.db.query(`INSERT INTO task_comments (company_id, task_id, body, author_agent_id) VALUES ($1, $2, 'Still blocked', $3)`, [
      companyId, blocked, agentId,
    ])
    expect(await fireHeartbeat(t.ctx, def, nextSlot())).toBe('idle')
    await t.ctx.db.query(`INSERT INTO task_comments (company_id, task_id, body, author_user_id) VALUES ($1, $2, 'Any news?', $3)`, [
      companyId, blocked, user!.id,
    ])
    expect(await fireHeartbeat(t.ctx, def, nextSlot())).toBe('fired')
  })

  it('leaves agents without the setting as SPEC.md says: woken with nothing to do', async () => {
    const companyId = await makeCompany(t.ctx.db)
    const agentId = await makeAgent(t.ctx.db, companyId, { name: 'Eager', heartbeat_cron: '0 * * * *' })
    expect(await fireHeartbeat(t.ctx, { kind: 'heartbeat', id: agentId, companyId, cron: '0 * * * *' }, nextSlot())).toBe('fired')
  })

  it('logs and counts the skips of a running scheduler', async () => {
    const companyId = await makeCompany(t.ctx.db)
    const { agentId } = await skipIdleAgent(companyId, DAILY)
    const counted = async () =>
      (await registry.getSingleMetric('shopfloor_scheduler_slots_total')!.get()).values.find(
        (v) => v.labels.kind === 'heartbeat' && v.labels.result === 'idle',
      )?.value ?? 0
    const before = await counted()
    const { ctx, lines } = withCapturedLog(t.ctx)
    const scheduler = await startScheduler(ctx)
    try {
      await scheduler.ready
      await scheduler.tick(later())
      const line = lines().find((l) => l.msg?.startsWith('heartbeat skipped') && l.id === agentId)
      expect(line).toMatchObject({ kind: 'heartbeat', company_id: companyId, level: 30 })
      expect(await counted()).toBeGreaterThan(before)
      expect(await runsOf(agentId)).toEqual([])
    } finally {
      await scheduler.stop()
    }
  })
})
