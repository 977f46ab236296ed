// The scheduler's sweep covers every company, so it runs on a database of its own: on a shared
// PostgreSQL it would also fail other test files' back-dated runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expireStaleRuns } from '../../src/domain/runs/expire.ts'
import type { Db } from '../../src/server/db/db.ts'
import { openPostgres } from '../../src/server/db/postgres.ts'
import { call, scratchPostgres, type TestApp, testApp } from '../helpers.ts'
import { backdateLease, seedAgent, seedCompany } from './seed.ts'

let t: TestApp
let scratch: Awaited<ReturnType<typeof scratchPostgres>>
let db: Db | undefined
beforeAll(async () => {
  scratch = await scratchPostgres()
  db = scratch ? openPostgres(scratch.url) : undefined
  t = await testApp({ runLeaseSeconds: 60 }, db ? { db } : {})
})
afterAll(async () => {
  await t?.close()
  await db?.close()
  await scratch?.drop()
})

async function runningRun() {
  const s = await seedCompany(t)
  const agent = await seedAgent(t, s)
  const woken = await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body: {} })
  const claimed = await call(t.app, 'POST', `${s.base}/runs/claim`, { token: s.user.token, body: { runner_id: 'r1' } })
  expect(claimed.body.run.id).toBe(woken.body.id)
  return { agent, runId: woken.body.id as string }
}

describe('expireStaleRuns(ctx, null)', () => {
  it('fails the stale runs of every company and leaves fresh ones running', async () => {
    const one = await runningRun()
    const two = await runningRun()
    const fresh = await runningRun()
    await backdateLease(t.ctx, one.runId, 61)
    await backdateLease(t.ctx, two.runId, 61)
    const expired = await expireStaleRuns(t.ctx, null)
    expect(expired.sort()).toEqual([one.runId, two.runId].sort())
    const rows = await t.ctx.db.many<{ id: string; status: string; redo_of: string | null }>('SELECT id, status, redo_of FROM runs ORDER BY id')
    expect(Object.fromEntries(rows.filter((r) => !r.redo_of).map((r) => [r.id, r.status]))).toEqual({
      [one.runId]: 'failed', [two.runId]: 'failed', [fresh.runId]: 'running',
    })
    // Each lost run is queued again (redo-lost.ts).
    expect(rows.filter((r) => r.redo_of).map((r) => [r.redo_of, r.status]).sort()).toEqual([[one.runId, 'queued'], [two.runId, 'queued']].sort())
    const agents = await t.ctx.db.many('SELECT id, status FROM agents WHERE id = ANY($1::uuid[])', [[one.agent, two.agent]])
    expect(agents.map((a) => a.status)).toEqual(['error', 'error'])
  })
})
