import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { fireRoutine } from '../../src/scheduler/fire.ts'
import { startScheduler } from '../../src/scheduler/scheduler.ts'
import { createCompany, hireAgent } from '../fixtures.ts'
import { call, createUser } from '../helpers.ts'
import { DAILY, later, makeAgent, makeCompany, makeRoutine, privateApp, waitFor } from './setup.ts'

let t: Awaited<ReturnType<typeof privateApp>>
beforeAll(async () => {
  t = await privateApp()
})
afterAll(async () => {
  await t?.close()
})

const tasksOf = (routineId: string) =>
  t.ctx.db.many<{ id: string; title: string; assignee_agent_id: string; created_at: string }>(
    'SELECT id, title, assignee_agent_id, created_at FROM tasks WHERE routine_id = $1 ORDER BY created_at',
    [routineId],
  )

describe('routines on their cron', () => {
  // The one test that waits for the scheduler's own timer (a slot of an every-second cron, under
  // a second away); the others tick the scheduler to a time past the slot instead.
  it('triggers an enabled routine: a task and a routine run, audited as the system, with events', async () => {
    const companyId = await makeCompany(t.ctx.db)
    const agentId = await makeAgent(t.ctx.db, companyId, { name: 'Rita' })
    const routineId = await makeRoutine(t.ctx.db, companyId, agentId, { cron: '* * * * * *', title: 'Check the inbox' })
    const events: any[] = []
    const unsubscribe = t.ctx.bus.subscribe(companyId, (e) => events.push(e))
    const scheduler = await startScheduler(t.ctx)
    try {
      const [task] = await waitFor(async () => {
        const tasks = await tasksOf(routineId)
        return tasks.length ? tasks : null
      })
      expect(task).toMatchObject({ title: 'Check the inbox', assignee_agent_id: agentId })
      const run = await t.ctx.db.one('SELECT id, trigger, status, routine_id FROM runs WHERE task_id = $1', [task.id])
      expect(run).toMatchObject({ trigger: 'routine', status: 'queued', routine_id: routineId })
      const routine = await t.ctx.db.one('SELECT last_run_at FROM routines WHERE id = $1', [routineId])
      expect(routine!.last_run_at).not.toBeNull()
      const audit = await t.ctx.db.one(
        `SELECT actor_type, actor_name FROM audit_events WHERE company_id = $1 AND entity_id = $2 AND verb = 'triggered'`,
        [companyId, routineId],
      )
      expect(audit).toEqual({ actor_type: 'system', actor_name: 'Rita' })
      await waitFor(async () => events.some((e) => e.type === 'routine.updated'))
      expect(events).toContainEqual({ type: 'routine.updated', id: routineId })
      expect(events).toContainEqual({ type: 'task.created', id: task.id })
      expect(events).toContainEqual({ type: 'run.created', id: run!.id, agent_id: agentId })
    } finally {
      unsubscribe()
      await scheduler.stop()
    }
  })

  it('skips routines of dormant agents and disabled routines', async () => {
    const companyId = await makeCompany(t.ctx.db)
    const paused = await makeRoutine(t.ctx.db, companyId, await makeAgent(t.ctx.db, companyId, { status: 'paused' }), { cron: DAILY })
    const terminated = await makeRoutine(t.ctx.db, companyId, await makeAgent(t.ctx.db, companyId, { status: 'terminated' }), { cron: DAILY })
    const awakeAgent = await makeAgent(t.ctx.db, companyId)
    const disabled = await makeRoutine(t.ctx.db, companyId, awakeAgent, { cron: DAILY, enabled: false })
    const enabled = await makeRoutine(t.ctx.db, companyId, awakeAgent, { cron: DAILY })
    const scheduler = await startScheduler(t.ctx)
    try {
      await scheduler.ready
      for (let slot = 0; slot < 2; slot++) await scheduler.tick(later())
      expect(await tasksOf(enabled)).toHaveLength(2) // two slots have passed
      for (const routineId of [paused, terminated, disabled]) expect(await tasksOf(routineId)).toEqual([])
    } finally {
      await scheduler.stop()
    }
  })

  it('fires a routine at most once per MIN_SCHEDULE_SECONDS, whatever its cron: every second fires every 2 s here', async () => {
    const companyId = await makeCompany(t.ctx.db)
    const agentId = await makeAgent(t.ctx.db, companyId)
    const routineId = await makeRoutine(t.ctx.db, companyId, agentId, { cron: '* * * * * *', title: 'Every second' })
    const before = t.ctx.config.minScheduleSeconds
    t.ctx.config.minScheduleSeconds = 2
    const scheduler = await startScheduler(t.ctx)
    try {
      await waitFor(async () => (await tasksOf(routineId)).length >= 1)
      await new Promise((r) => setTimeout(r, 5000))
      const tasks = (await tasksOf(routineId)).length
      // About 5 s more at one every 2 s: 3 or 4 in all, never the 6 or 7 of every second.
      expect(tasks).toBeGreaterThanOrEqual(2)
      expect(tasks).toBeLessThanOrEqual(4)
    } finally {
      await scheduler.stop()
      t.ctx.config.minScheduleSeconds = before
    }
    expect(t.ctx.config.minScheduleSeconds).toBe(60)
    // With the default, two slots within a minute fire once, also across scheduler instances (the guard).
    const cron = '*/10 * * * * *'
    const other = await makeRoutine(t.ctx.db, companyId, agentId, { cron, title: 'Every ten seconds' })
    const def = { kind: 'routine' as const, id: other, companyId, cron }
    const windowMs = t.ctx.config.minScheduleSeconds * 1000 - 1
    expect(await fireRoutine(t.ctx, def, { at: new Date('2031-01-01T09:00:00Z'), windowMs })).toBe(true)
    expect(await fireRoutine(t.ctx, def, { at: new Date('2031-01-01T09:00:10Z'), windowMs })).toBe(false)
    expect(await fireRoutine(t.ctx, def, { at: new Date('2031-01-01T09:00:50Z'), windowMs })).toBe(false)
    expect(await fireRoutine(t.ctx, def, { at: new Date('2031-01-01T09:01:00Z'), windowMs })).toBe(true)
    expect(await tasksOf(other)).toHaveLength(2)
  })

  it('skips a slot within the window of the last run, such as a trigger by a person', async () => {
    const companyId = await makeCompany(t.ctx.db)
    const agentId = await makeAgent(t.ctx.db, companyId)
    const cron = '0 9 * * *'
    const routineId = await makeRoutine(t.ctx.db, companyId, agentId, { cron })
    const def = { kind: 'routine' as const, id: routineId, companyId, cron }
    await t.ctx.db.query(`UPDATE routines SET last_run_at = '2030-01-01T08:59:20Z' WHERE id = $1`, [routineId])
    expect(await fireRoutine(t.ctx, def, { at: new Date('2030-01-01T09:00:00Z'), windowMs: 50_000 })).toBe(false)
    await t.ctx.db.query(`UPDATE routines SET last_run_at = '2030-01-01T08:58:00Z' WHERE id = $1`, [routineId])
    expect(await fireRoutine(t.ctx, def, { at: new Date('2030-01-01T09:00:00Z'), windowMs: 50_000 })).toBe(true)
    expect(await tasksOf(routineId)).toHaveLength(1)
  })

  it('logs and skips an invalid cron without stopping', async () => {
    const companyId = await makeCompany(t.ctx.db)
    const agentId = await makeAgent(t.ctx.db, companyId)
    const broken = await makeRoutine(t.ctx.db, companyId, agentId, { cron: '99 * * * *' })
    const fine = await makeRoutine(t.ctx.db, companyId, agentId, { cron: DAILY })
    const scheduler = await startScheduler(t.ctx)
    try {
      await scheduler.ready
      await scheduler.tick(later())
      expect((await tasksOf(fine)).length).toBeGreaterThan(0)
      expect(await tasksOf(broken)).toEqual([])
    } finally {
      await scheduler.stop()
    }
  })
})

describe('definition refresh', () => {
  // Nothing else fires during these tests, so no other event can cause the re-read.
  beforeEach(async () => {
    await t.ctx.db.query('UPDATE routines SET enabled = false')
    await t.ctx.db.query('UPDATE agents SET heartbeat_cron = NULL')
  })

  /** A person with a company and an agent, made through the API (so with events). */
  async function staffedCompany() {
    const user = await createUser(t.ctx)
    const company = await createCompany(t.app, user.token)
    return { user, company, agent: await hireAgent(t.app, user.token, company.id) }
  }

  /** Ticks the scheduler past every slot it holds until `check` holds (a re-read has found something). */
  const tickUntil = (scheduler: { tick(now: Date): Promise<void> }, check: () => Promise<unknown>) =>
    waitFor(async () => {
      await scheduler.tick(later())
      return check()
    }, 10_000)

  it('re-reads definitions 1 second after a routine.* or agent.* event', async () => {
    const { user, company, agent } = await staffedCompany()
    const scheduler = await startScheduler(t.ctx, { refreshMs: 3_600_000 })
    await scheduler.ready
    try {
      // Written straight to the database: no event, so not seen yet.
      const silent = await makeRoutine(t.ctx.db, company.id, agent.id, { cron: DAILY })
      await scheduler.tick(later())
      expect(await tasksOf(silent)).toEqual([])

      // The company existed at start, so the scheduler listens to its events.
      const sent = Date.now()
      const created = await call(t.app, 'POST', `/api/companies/${company.id}/routines`, {
        token: user.token,
        body: { agent_id: agent.id, title: 'Stand-up', cron: DAILY },
      })
      expect(created.status).toBe(201)
      await tickUntil(scheduler, async () => (await tasksOf(created.body.id)).length > 0)
      expect(Date.now() - sent).toBeGreaterThanOrEqual(990) // not before the second is up (timers may run a hair early)
      expect((await tasksOf(silent)).length).toBeGreaterThan(0) // the same re-read found it
    } finally {
      await scheduler.stop()
    }
  })

  // What a re-read does, with the delay after the event shortened: the second is the test above's.
  it('a re-read after an event drops a routine disabled through the API and picks up a heartbeat_cron', async () => {
    const { user, company, agent } = await staffedCompany()
    const created = await call(t.app, 'POST', `/api/companies/${company.id}/routines`, {
      token: user.token,
      body: { agent_id: agent.id, title: 'Stand-up', cron: DAILY },
    })
    const scheduler = await startScheduler(t.ctx, { refreshMs: 3_600_000, eventRefreshDelayMs: 50 })
    await scheduler.ready
    try {
      await scheduler.tick(later())
      expect(await tasksOf(created.body.id)).toHaveLength(1)

      // Disabled through the API, then an agent's heartbeat_cron set through the API: once the
      // re-read has found the heartbeat, the routine no longer fires.
      await call(t.app, 'PATCH', `/api/companies/${company.id}/routines/${created.body.id}`, { token: user.token, body: { enabled: false } })
      await call(t.app, 'PATCH', `/api/companies/${company.id}/agents/${agent.id}`, { token: user.token, body: { heartbeat_cron: DAILY } })
      await tickUntil(scheduler, () => t.ctx.db.one(`SELECT 1 FROM runs WHERE agent_id = $1 AND trigger = 'manual'`, [agent.id]))
      await scheduler.tick(later())
      expect(await tasksOf(created.body.id)).toHaveLength(1)
    } finally {
      await scheduler.stop()
    }
  })

  it('hears the events of a company created after it started, at once', async () => {
    const scheduler = await startScheduler(t.ctx, { refreshMs: 3_600_000, eventRefreshDelayMs: 50 })
    await scheduler.ready
    try {
      const { user, company, agent } = await staffedCompany()
      const created = await call(t.app, 'POST', `/api/companies/${company.id}/routines`, {
        token: user.token,
        body: { agent_id: agent.id, title: 'Fresh company routine', cron: DAILY },
      })
      await tickUntil(scheduler, async () => (await tasksOf(created.body.id)).length > 0)
    } finally {
      await scheduler.stop()
    }
  })

  it('without events, finds new definitions on the periodic refresh', async () => {
    const scheduler = await startScheduler(t.ctx, { refreshMs: 300 })
    try {
      await scheduler.ready
      const companyId = await makeCompany(t.ctx.db) // written straight to the database: no event
      const routineId = await makeRoutine(t.ctx.db, companyId, await makeAgent(t.ctx.db, companyId), { cron: DAILY })
      await tickUntil(scheduler, async () => (await tasksOf(routineId)).length > 0)
    } finally {
      await scheduler.stop()
    }
  })
})
