// Several scheduler instances on one database (as with several API processes): each slot of a
// routine or of an agent's heartbeat fires exactly once. With PostgreSQL the two instances use
// separate connection pools on a scratch database, as two processes would.
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { AppContext } from '../../src/server/context.ts'
import { openPostgres } from '../../src/server/db/postgres.ts'
import { fireHeartbeat, fireRoutine } from '../../src/scheduler/fire.ts'
import { startScheduler } from '../../src/scheduler/scheduler.ts'
import { DAILY, later, makeAgent, makeCompany, makeRoutine, privateApp, withCapturedLog } from './setup.ts'

let t: Awaited<ReturnType<typeof privateApp>>
let second: AppContext
beforeAll(async () => {
  t = await privateApp()
  second = { ...t.ctx, db: t.url ? openPostgres(t.url, undefined, 10) : t.ctx.db }
})
afterAll(async () => {
  if (second?.db !== t?.ctx.db) await second?.db.close()
  await t?.close()
})

it('two instances racing for the same slot: one fires it', async () => {
  const companyId = await makeCompany(t.ctx.db)
  const cron = '*/5 * * * *'
  const agentId = await makeAgent(t.ctx.db, companyId, { heartbeat_cron: cron })
  const routineId = await makeRoutine(t.ctx.db, companyId, agentId, { cron })
  for (let minute = 0; minute < 20; minute += 5) {
    const slot = { at: new Date(Date.UTC(2030, 0, 1, 10, minute)), windowMs: 50_000 }
    const routine = { kind: 'routine' as const, id: routineId, companyId, cron }
    const heartbeat = { kind: 'heartbeat' as const, id: agentId, companyId, cron }
    const fired = await Promise.all([fireRoutine(t.ctx, routine, slot), fireRoutine(second, routine, slot)])
    expect(fired.filter(Boolean)).toHaveLength(1)
    const woke = await Promise.all([fireHeartbeat(t.ctx, heartbeat, slot), fireHeartbeat(second, heartbeat, slot)])
    expect(woke.filter((r) => r === 'fired')).toHaveLength(1)
  }
  expect(await t.ctx.db.many('SELECT id FROM tasks WHERE routine_id = $1', [routineId])).toHaveLength(4)
})

it('two running schedulers fire each due routine once per slot', async () => {
  const companyId = await makeCompany(t.ctx.db)
  const routines: string[] = []
  for (let i = 0; i < 3; i++) {
    const agentId = await makeAgent(t.ctx.db, companyId, { name: `Agent ${i}` })
    routines.push(await makeRoutine(t.ctx.db, companyId, agentId, { cron: DAILY, title: `Daily ${i}` }))
  }
  const a = withCapturedLog(t.ctx)
  const b = withCapturedLog(second)
  const fired = () =>
    [...a.lines(), ...b.lines()].filter((l) => l.msg === 'scheduled slot fired' && routines.includes(l.id)).map((l) => `${l.id} ${l.slot}`)
  const schedulers = await Promise.all([startScheduler(a.ctx), startScheduler(b.ctx)])
  try {
    await Promise.all(schedulers.map((s) => s.ready))
    // Both reach each of three slots at the same moment, as two processes' timers would.
    for (let slot = 0; slot < 3; slot++) {
      const now = later()
      await Promise.all(schedulers.map((s) => s.tick(now)))
    }
  } finally {
    await Promise.all(schedulers.map((s) => s.stop()))
  }

  // Every slot of every routine fired, none by both instances, and each firing made one task.
  for (const routineId of routines) expect(fired().filter((f) => f.startsWith(routineId))).toHaveLength(3)
  expect(new Set(fired()).size).toBe(fired().length)
  for (const routineId of routines) {
    const tasks = await t.ctx.db.many('SELECT 1 FROM tasks WHERE routine_id = $1', [routineId])
    expect(tasks).toHaveLength(fired().filter((f) => f.startsWith(routineId)).length)
  }
})
