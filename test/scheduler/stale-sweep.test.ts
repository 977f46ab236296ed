import { afterAll, beforeAll, expect, it } from 'vitest'
import { LEASE_EXPIRED_ERROR } from '../../src/domain/runs/expire.ts'
import { startScheduler } from '../../src/scheduler/scheduler.ts'
import { makeAgent, makeCompany, privateApp, waitFor } from './setup.ts'

let t: Awaited<ReturnType<typeof privateApp>>
beforeAll(async () => {
  t = await privateApp()
})
afterAll(async () => {
  await t?.close()
})

it('fails running runs whose lease ran out, on its own interval, in every company', async () => {
  const companies = [await makeCompany(t.ctx.db), await makeCompany(t.ctx.db)]
  const runs: { companyId: string; agentId: string; runId: string }[] = []
  for (const companyId of companies) {
    const agentId = await makeAgent(t.ctx.db, companyId, { name: 'Stale', status: 'running' })
    const run = await t.ctx.db.one<{ id: string }>(
      `INSERT INTO runs (company_id, agent_id, status, trigger, runner_id, started_at, heartbeat_at)
       VALUES ($1, $2, 'running', 'manual', 'gone-runner', now() - interval '1 hour', now() - interval '1 hour') RETURNING id`,
      [companyId, agentId],
    )
    runs.push({ companyId, agentId, runId: run!.id })
  }
  // A fresh run on the same database is left alone.
  const freshAgent = await makeAgent(t.ctx.db, companies[0], { name: 'Fresh', status: 'running' })
  const fresh = await t.ctx.db.one<{ id: string }>(
    `INSERT INTO runs (company_id, agent_id, status, trigger, runner_id, started_at, heartbeat_at)
     VALUES ($1, $2, 'running', 'manual', 'live-runner', now(), now()) RETURNING id`,
    [companies[0], freshAgent],
  )

  const scheduler = await startScheduler(t.ctx, { staleSweepMs: 100 })
  try {
    for (const { companyId, agentId, runId } of runs) {
      const run = await waitFor(() =>
        t.ctx.db.one<{ status: string; error: string }>(`SELECT status, error FROM runs WHERE id = $1 AND company_id = $2 AND status = 'failed'`, [runId, companyId]),
      )
      expect(run.error).toBe(LEASE_EXPIRED_ERROR)
      const agent = await t.ctx.db.one('SELECT status FROM agents WHERE id = $1', [agentId])
      expect(agent!.status).toBe('error')
      const audit = await t.ctx.db.one(
        `SELECT actor_type, verb FROM audit_events WHERE company_id = $1 AND entity_id = $2 AND verb = 'failed'`,
        [companyId, runId],
      )
      expect(audit).toEqual({ actor_type: 'system', verb: 'failed' })
    }
    expect((await t.ctx.db.one('SELECT status FROM runs WHERE id = $1', [fresh!.id]))!.status).toBe('running')
  } finally {
    await scheduler.stop()
  }
})
