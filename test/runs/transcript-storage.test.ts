// How a run's transcript is stored (migration 220): one row per entry, so that a report appends
// its entries without rewriting the ones before (its cost the same at any length), a read of the
// run carries the last 2,000 entries with where they start (`transcript_from`), the pages reach
// the rest, concurrent reports take consecutive positions, and the migration moved every
// transcript kept as one JSON value before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrate, readMigrations } from '../../src/server/db/migrate.ts'
import { call, emptyDb, TEST_DATABASE_URL, type TestApp, testApp } from '../helpers.ts'
import { type Seeded, seedAgent, seedCompany } from './seed.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp({ runLeaseSeconds: 60 })
})
afterAll(async () => t?.close())

/** A run claimed by runner `r1`, whose transcript starts with the wake's reason. */
async function runningRun(): Promise<{ s: Seeded; runId: string }> {
  const s = await seedCompany(t)
  const agent = await seedAgent(t, s, { name: 'Scribe' })
  const woken = await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body: { reason: 'go' } })
  expect((await call(t.app, 'POST', `${s.base}/runs/claim`, { token: s.user.token, body: { runner_id: 'r1' } })).status).toBe(200)
  return { s, runId: woken.body.id }
}

function report(s: Seeded, runId: string, texts: string[]) {
  return call(t.app, 'PATCH', `${s.base}/runs/${runId}`, { token: s.user.token, body: { runner_id: 'r1', transcript: texts.map((text) => ({ text })) } })
}

describe('run transcripts', () => {
  it('a read of the run carries the last 2,000 entries and says where they start; the pages reach the rest', async () => {
    const { s, runId } = await runningRun()
    // The wake's reason, then 2,049 reported: 2,050 entries.
    for (let from = 0; from < 2049; from += 500) {
      const texts = Array.from({ length: Math.min(500, 2049 - from) }, (_, i) => `line ${from + i}`)
      expect((await report(s, runId, texts)).status).toBe(200)
    }
    const get = (query = '') => call(t.app, 'GET', `${s.base}/runs/${runId}${query}`, { token: s.user.token })
    const whole = await get()
    expect(whole.body).toMatchObject({ transcript_count: 2050, transcript_total: 2050, transcript_from: 50 })
    expect(whole.body.transcript).toHaveLength(2000)
    expect(whole.body.transcript[0].text).toBe('line 49')
    expect(whole.body.transcript.at(-1).text).toBe('line 2048')
    // Asked from an earlier entry, still the last 2,000; from a later one, the rest.
    expect((await get('?transcript_from=10')).body).toMatchObject({ transcript_from: 50, transcript_count: 2050 })
    const tail = await get('?transcript_from=2047')
    expect(tail.body.transcript_from).toBe(2047)
    expect(tail.body.transcript.map((e: any) => e.text)).toEqual(['line 2046', 'line 2047', 'line 2048'])
    const head = await call(t.app, 'GET', `${s.base}/runs/${runId}/transcript?after=0&limit=50`, { token: s.user.token })
    expect(head.body.transcript_total).toBe(2050)
    expect(head.body.entries.map((e: any) => e.text)).toEqual(['go', ...Array.from({ length: 49 }, (_, i) => `line ${i}`)])
    // A position past any integer the database adds is an empty page, not an error.
    const far = await call(t.app, 'GET', `${s.base}/runs/${runId}/transcript?after=2147483647&limit=2000`, { token: s.user.token })
    expect(far.status).toBe(200)
    expect(far.body.entries).toEqual([])
  })

  it('a report writes its own entries only: the rows of the entries before it stay as they were', async () => {
    const { s, runId } = await runningRun()
    expect((await report(s, runId, ['first', 'second'])).status).toBe(200)
    const rows = () => t.ctx.db.many<{ seq: number; version: string }>(
      'SELECT seq, xmin::text || ctid::text AS version FROM run_transcript_entries WHERE run_id = $1 ORDER BY seq', [runId])
    const before = await rows()
    expect(before.map((r) => r.seq)).toEqual([1, 2, 3])
    expect((await report(s, runId, ['third'])).status).toBe(200)
    const after = await rows()
    expect(after.slice(0, 3)).toEqual(before)
    expect(after.map((r) => r.seq)).toEqual([1, 2, 3, 4])
  })

  it('concurrent reports of one run take consecutive positions, each report’s entries together and in order', async () => {
    const { s, runId } = await runningRun()
    const answers = await Promise.all(Array.from({ length: 8 }, (_, r) => report(s, runId, [`r${r} a`, `r${r} b`, `r${r} c`])))
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200))
    const run = await call(t.app, 'GET', `${s.base}/runs/${runId}`, { token: s.user.token })
    expect(run.body.transcript_count).toBe(25)
    const texts: string[] = run.body.transcript.slice(1).map((e: any) => e.text)
    for (let i = 0; i < texts.length; i += 3) {
      const r = texts[i]!.split(' ')[0]
      expect(texts.slice(i, i + 3)).toEqual([`${r} a`, `${r} b`, `${r} c`])
    }
    expect(new Set(texts).size).toBe(24)
  })

  it.runIf(TEST_DATABASE_URL)('long entries are stored compressed with lz4 on PostgreSQL', async () => {
    const { s, runId } = await runningRun()
    // Long enough to be compressed: PostgreSQL compresses values of about 2 KB and more.
    const long = Array.from({ length: 40 }, (_, i) => `Step ${i}: read the file, ran the tests, compared the output.`).join('\n')
    expect((await report(s, runId, [long])).status).toBe(200)
    const row = await t.ctx.db.one<{ compression: string | null }>(
      'SELECT pg_column_compression(entry) AS compression FROM run_transcript_entries WHERE run_id = $1 AND seq = 2', [runId])
    expect(row!.compression).toBe('lz4')
  })
})

it('migration 220 moves each transcript kept as one JSON value into its entries, in order', async () => {
  const db = await emptyDb()
  try {
    await migrate(db, readMigrations().filter((m) => m.version < 220))
    // Old migrations include today's functions (db/functions/), whose totals write columns that
    // later migrations add: the old version's rows are written with triggers off.
    const runId = await db.transaction(async (tx) => {
      await tx.query('SET LOCAL session_replication_role = replica')
      const id = (await tx.one<{ id: string }>(
      `WITH c AS (INSERT INTO companies (name, task_prefix) VALUES ('Old Co', 'OLD') RETURNING id),
            a AS (INSERT INTO agents (company_id, name) SELECT id, 'Old agent' FROM c RETURNING id, company_id)
       INSERT INTO runs (company_id, agent_id, trigger, transcript)
       SELECT company_id, id, 'manual', '[{"timestamp": "2026-01-01T00:00:00Z", "role": "system", "text": "why"},
                                          {"timestamp": "2026-01-01T00:00:01Z", "role": "agent", "text": "did it"}]' FROM a
       RETURNING id`,
      ))!.id
      await tx.query(`INSERT INTO runs (company_id, agent_id, trigger, status) SELECT company_id, agent_id, 'manual', 'cancelled' FROM runs`)
      return id
    })
    await migrate(db, readMigrations().filter((m) => m.version >= 220))
    expect(await db.many('SELECT run_id, seq, entry FROM run_transcript_entries ORDER BY seq')).toEqual([
      { run_id: runId, seq: 1, entry: { timestamp: '2026-01-01T00:00:00Z', role: 'system', text: 'why' } },
      { run_id: runId, seq: 2, entry: { timestamp: '2026-01-01T00:00:01Z', role: 'agent', text: 'did it' } },
    ])
    expect(await db.many('SELECT transcript_count FROM runs ORDER BY transcript_count')).toEqual([{ transcript_count: 0 }, { transcript_count: 2 }])
  } finally {
    await db.close()
  }
})
