// Transcript retention: the scheduler empties the transcripts of runs finished more than
// TRANSCRIPT_RETENTION_DAYS ago, and removes their patches, in batches; the runs stay and say
// they were trimmed.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { TRIM_BATCH, trimTranscripts } from '../../src/domain/runs/retention.ts'
import { startScheduler } from '../../src/scheduler/scheduler.ts'
import { call, createUser } from '../helpers.ts'
import { makeAgent, makeCompany, privateApp, waitFor } from '../scheduler/setup.ts'

let t: Awaited<ReturnType<typeof privateApp>>
beforeAll(async () => {
  t = await privateApp()
})
afterAll(async () => {
  await t?.close()
})

async function run(companyId: string, agentId: string, status: string, endedDaysAgo: number | null): Promise<string> {
  const row = await t.ctx.db.one<{ id: string }>(
    `WITH run AS (
       INSERT INTO runs (company_id, agent_id, status, trigger, cost_cents, started_at, ended_at, transcript_count)
       VALUES ($1, $2, $3, 'manual', 42, now() - interval '50 days',
               CASE WHEN $4::int IS NULL THEN NULL ELSE now() - make_interval(days => $4::int) END, 2)
       RETURNING id
     ), entries AS (
       INSERT INTO run_transcript_entries (run_id, seq, entry)
       SELECT id, n, jsonb_build_object('timestamp', '2026-01-01T00:00:00+00:00', 'role', 'agent', 'text', CASE n WHEN 1 THEN 'secret work' ELSE 'more secrets' END)
         FROM run, generate_series(1, 2) AS n
     )
     SELECT id FROM run`,
    [companyId, agentId, status, endedDaysAgo],
  )
  return row!.id
}

it('the scheduler trims runs finished longer ago than TRANSCRIPT_RETENTION_DAYS and leaves the rest', async () => {
  const owner = await createUser(t.ctx, 'Keeper')
  const companyId = await makeCompany(t.ctx.db, 'Retention Co')
  await t.ctx.db.query(`INSERT INTO memberships (company_id, user_id, role) VALUES ($1, $2, 'owner')`, [companyId, owner.id])
  const agentId = await makeAgent(t.ctx.db, companyId)
  const old = await run(companyId, agentId, 'succeeded', 40)
  const oldFailed = await run(companyId, agentId, 'failed', 31)
  const recent = await run(companyId, agentId, 'succeeded', 10)
  const running = await run(companyId, agentId, 'running', null)
  // Each run's patch (what it changed), as its runner uploads it.
  await t.ctx.db.query(
    `INSERT INTO run_patches (run_id, company_id, patch) SELECT id, company_id, 'diff --git a/x b/x' FROM runs WHERE id = ANY($1)`,
    [[old, oldFailed, recent, running]],
  )
  const audit = await t.ctx.db.one('SELECT count(*)::int AS n FROM audit_events WHERE company_id = $1', [companyId])

  t.ctx.config.transcriptRetentionDays = 30
  const scheduler = await startScheduler(t.ctx, { retentionMs: 60_000 })
  try {
    await scheduler.ready
    await waitFor(async () => {
      const r = await t.ctx.db.one('SELECT transcript_trimmed_at FROM runs WHERE id = $1', [oldFailed])
      return r!.transcript_trimmed_at !== null
    })
  } finally {
    await scheduler.stop()
    t.ctx.config.transcriptRetentionDays = null
  }
  const base = `/api/companies/${companyId}/runs`
  for (const id of [old, oldFailed]) {
    const r = await call(t.app, 'GET', `${base}/${id}`, { token: owner.token })
    expect(r.status).toBe(200)
    expect(r.body.transcript_trimmed_at).toBeTruthy()
    expect(r.body.transcript).toHaveLength(1)
    expect(r.body.transcript_count).toBe(1)
    expect((await call(t.app, 'GET', `${base}/${id}/transcript`, { token: owner.token })).body.entries).toEqual(r.body.transcript)
    expect(r.body.transcript[0]).toMatchObject({ role: 'system', text: expect.stringMatching(/^Transcript removed: the run finished more than 30 days ago/) })
    expect(r.body.cost_cents).toBe(42) // the run and its totals stay
    // Its patch goes with the transcript, and reading it says why.
    const patch = await call(t.app, 'GET', `${base}/${id}/patch`, { token: owner.token })
    expect(patch.status).toBe(404)
    expect(patch.body.error.message).toMatch(/^Patch removed with the transcript: the run finished longer ago than TRANSCRIPT_RETENTION_DAYS/)
  }
  for (const id of [recent, running]) {
    const r = await call(t.app, 'GET', `${base}/${id}`, { token: owner.token })
    expect(r.body.transcript_trimmed_at).toBeNull()
    expect(r.body.transcript.map((e: any) => e.text)).toEqual(['secret work', 'more secrets'])
    expect((await call(t.app, 'GET', `${base}/${id}/patch`, { token: owner.token })).body).toBe('diff --git a/x b/x')
  }
  const rows = await t.ctx.db.one<{ n: number }>('SELECT count(*)::int AS n FROM run_transcript_entries WHERE run_id = ANY($1)', [[old, oldFailed]])
  expect(rows!.n).toBe(2) // one note each: the entries themselves are gone
  expect(await t.ctx.db.one('SELECT count(*)::int AS n FROM audit_events WHERE company_id = $1', [companyId])).toEqual(audit)
})

it('works in batches: each statement trims at most one batch, the oldest first, and a trimmed run is not trimmed again', async () => {
  const companyId = await makeCompany(t.ctx.db, 'Batch Co')
  const agentId = await makeAgent(t.ctx.db, companyId)
  await t.ctx.db.query(
    `WITH run AS (
       INSERT INTO runs (company_id, agent_id, status, trigger, started_at, ended_at, transcript_count)
       SELECT $1, $2, 'succeeded', 'manual', now() - interval '100 days', now() - make_interval(days => 40 + n), 1
         FROM generate_series(1, $3::int) AS n
       RETURNING id
     )
     INSERT INTO run_transcript_entries (run_id, seq, entry)
     SELECT id, 1, '{"timestamp": "2026-01-01T00:00:00+00:00", "role": "agent", "text": "x"}' FROM run`,
    [companyId, agentId, TRIM_BATCH + 20],
  )
  const counts: number[] = []
  for (;;) {
    const n = await trimTranscripts(t.ctx.db, 30)
    counts.push(n)
    if (n === 0) break
  }
  expect(counts[0]).toBe(TRIM_BATCH)
  expect(counts.reduce((a, b) => a + b, 0)).toBe(TRIM_BATCH + 20)
  const left = await t.ctx.db.one(`SELECT count(*)::int AS n FROM runs WHERE company_id = $1 AND transcript_trimmed_at IS NULL`, [companyId])
  expect(left!.n).toBe(0)
})

it('the scheduler removes delivered and failed webhook deliveries older than 30 days, never pending ones', async () => {
  const companyId = await makeCompany(t.ctx.db, 'Log Co')
  const hook = await t.ctx.db.one<{ id: string }>(
    `INSERT INTO webhooks (company_id, url, secret) VALUES ($1, 'https://example.com/hook', 'whsec_x') RETURNING id`, [companyId])
  const add = async (status: string, days: number) => (await t.ctx.db.one<{ id: string }>(
    `INSERT INTO webhook_deliveries (webhook_id, company_id, event_id, type, payload, status, created_at)
     VALUES ($1, $2, 'evt_' || gen_random_uuid(), 'task.created', '{}', $3, now() - make_interval(days => $4)) RETURNING id`,
    [hook!.id, companyId, status, days]))!.id
  const oldDelivered = await add('delivered', 31)
  const oldFailed = await add('failed', 40)
  const oldPending = await add('pending', 40)
  const recent = await add('delivered', 5)
  const scheduler = await startScheduler(t.ctx, { retentionMs: 60_000 })
  try {
    await scheduler.ready
    await waitFor(async () => (await t.ctx.db.many('SELECT 1 FROM webhook_deliveries WHERE id = ANY($1)', [[oldDelivered, oldFailed]])).length === 0)
  } finally {
    await scheduler.stop()
  }
  const left = await t.ctx.db.many<{ id: string }>('SELECT id FROM webhook_deliveries WHERE webhook_id = $1', [hook!.id])
  expect(left.map((r) => r.id).sort()).toEqual([oldPending, recent].sort())
})
