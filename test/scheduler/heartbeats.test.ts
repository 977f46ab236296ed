import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fireHeartbeat } from '../../src/scheduler/fire.ts'
import { startScheduler } from '../../src/scheduler/scheduler.ts'
import { DAILY, later, makeAgent, makeCompany, privateApp, waitFor, withCapturedLog } from './setup.ts'

let t: Awaited<ReturnType<typeof privateApp>>
beforeAll(async () => {
  t = await privateApp()
})
afterAll(async () => {
  await t?.close()
})

const runsOf = (agentId: string) =>
  t.ctx.db.many(`SELECT id, trigger, status, (SELECT coalesce(jsonb_agg(e.entry ORDER BY e.seq), '[]'::jsonb) FROM run_transcript_entries e WHERE e.run_id = runs.id) AS transcript FROM runs WHERE agent_id = $1 ORDER BY created_at`, [agentId])

describe('agent heartbeat_cron', () => {
  it('wakes the agent with a manual run whose first transcript entry gives the reason', async () => {
    const companyId = await makeCompany(t.ctx.db)
    const agentId = await makeAgent(t.ctx.db, companyId, { name: 'Hearty', heartbeat_cron: DAILY })
    const events: any[] = []
    const unsubscribe = t.ctx.bus.subscribe(companyId, (e) => events.push(e))
    const scheduler = await startScheduler(t.ctx)
    try {
      await scheduler.ready
      expect(await runsOf(agentId)).toEqual([]) // not before its slot
      await scheduler.tick(later())
      const [run] = await runsOf(agentId)
      expect(run.trigger).toBe('manual')
      expect(run.status).toBe('queued')
      expect(run.transcript[0].role).toBe('system')
      expect(run.transcript[0].text).toMatch(/^Scheduled heartbeat \(cron "0 3 \* \* \*"/)
      const audit = await t.ctx.db.one(
        `SELECT actor_type, actor_name, verb FROM audit_events WHERE company_id = $1 AND entity_id = $2`,
        [companyId, run.id],
      )
      expect(audit).toEqual({ actor_type: 'system', actor_name: 'Hearty', verb: 'queued' })
      await waitFor(async () => events.some((e) => e.type === 'run.created'))
      expect(events).toContainEqual({ type: 'run.created', id: run.id, agent_id: agentId })
    } finally {
      unsubscribe()
      await scheduler.stop()
    }
  })

  it('skips dormant agents', async () => {
    const companyId = await makeCompany(t.ctx.db)
    const paused = await makeAgent(t.ctx.db, companyId, { status: 'paused', heartbeat_cron: DAILY })
    const pending = await makeAgent(t.ctx.db, companyId, { status: 'pending_approval', heartbeat_cron: DAILY })
    const awake = await makeAgent(t.ctx.db, companyId, { status: 'error', heartbeat_cron: DAILY })
    const scheduler = await startScheduler(t.ctx)
    try {
      await scheduler.ready
      for (let slot = 0; slot < 2; slot++) await scheduler.tick(later()) // two slots for everyone
      expect((await runsOf(awake)).length).toBeGreaterThan(0)
      expect(await runsOf(paused)).toEqual([])
      expect(await runsOf(pending)).toEqual([])
    } finally {
      await scheduler.stop()
    }
  })

  it('fires a slot once: a second attempt for the same slot is refused', async () => {
    const companyId = await makeCompany(t.ctx.db)
    const cron = '*/10 * * * *'
    const agentId = await makeAgent(t.ctx.db, companyId, { heartbeat_cron: cron })
    const def = { kind: 'heartbeat' as const, id: agentId, companyId, cron }
    const slot = { at: new Date('2030-01-01T10:00:00Z'), windowMs: 50_000 }
    const results = await Promise.all([fireHeartbeat(t.ctx, def, slot), fireHeartbeat(t.ctx, def, slot)])
    expect(results.sort()).toEqual(['fired', 'skipped'])
    // Within the window of the last fired slot: still a duplicate.
    expect(await fireHeartbeat(t.ctx, def, { at: new Date('2030-01-01T10:00:30Z'), windowMs: 50_000 })).toBe('skipped')
    // The next slot fires (its run is the still-queued identical run, reused).
    expect(await fireHeartbeat(t.ctx, def, { at: new Date('2030-01-01T10:10:00Z'), windowMs: 50_000 })).toBe('fired')
    expect(await runsOf(agentId)).toHaveLength(1)
    // A changed cron since the definitions were read: the stale definition does not fire.
    await t.ctx.db.query(`UPDATE agents SET heartbeat_cron = '0 * * * *' WHERE id = $1`, [agentId])
    expect(await fireHeartbeat(t.ctx, def, { at: new Date('2030-01-01T10:20:00Z'), windowMs: 50_000 })).toBe('skipped')
  })

  it('logs an invalid cron and keeps scheduling the others', async () => {
    const companyId = await makeCompany(t.ctx.db)
    const broken = await makeAgent(t.ctx.db, companyId, { name: 'Broken', heartbeat_cron: 'every morning' })
    const fine = await makeAgent(t.ctx.db, companyId, { name: 'Fine', heartbeat_cron: DAILY })
    const { ctx, lines } = withCapturedLog(t.ctx)
    const scheduler = await startScheduler(ctx)
    try {
      await scheduler.ready
      await scheduler.tick(later())
      expect((await runsOf(fine)).length).toBeGreaterThan(0)
      const warning = lines().find((l) => l.msg === 'invalid cron expression; skipped' && l.id === broken)
      expect(warning).toMatchObject({ kind: 'heartbeat', cron: 'every morning', level: 40 })
      expect(await runsOf(broken)).toEqual([])
    } finally {
      await scheduler.stop()
    }
  })
})
