// One writer per table: audit events are written only by record_audit_events() and new runs
// only by queue_run() (src/server/db/functions/), whichever path - a transaction or a
// one-statement hot path - writes them.
import fs from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openPostgres } from '../../src/server/db/postgres.ts'
import { workerDatabaseUrl, TEST_DATABASE_URL, type TestApp, testApp } from '../helpers.ts'

const SRC = path.resolve(import.meta.dirname, '../../src')

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(full)
    return /\.(ts|tsx|sql)$/.test(entry.name) && entry.name !== 'schema.sql' ? [full] : []
  })
}

/** The files of src/ whose text matches `pattern`, relative to src/. */
function filesMatching(pattern: RegExp): string[] {
  return sourceFiles(SRC).filter((f) => pattern.test(fs.readFileSync(f, 'utf8'))).map((f) => path.relative(SRC, f)).sort()
}

describe('one writer per table', () => {
  it('audit events are inserted by record_audit_events() alone, new runs by queue_run() alone', () => {
    expect(filesMatching(/INSERT\s+INTO\s+audit_events\b/i)).toEqual(['server/db/functions/record_audit_events.sql'])
    expect(filesMatching(/INSERT\s+INTO\s+runs\b/i)).toEqual(['server/db/functions/queue_run.sql'])
  })

  it('no error is recognised by its message text: SQLSTATE and constraint names only', () => {
    // The one exception: node-postgres's own connection errors carry no code at all.
    expect(filesMatching(/message\)?\s*\.\s*(includes|match|startsWith|endsWith|indexOf)\s*\(|\.test\(\s*[\w.]*message\b/)).toEqual([
      'server/db/unavailable.ts',
    ])
  })
})

describe('record_audit_events()', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await testApp()
  })
  afterAll(async () => {
    await t.close()
  })

  async function newCompany(): Promise<string> {
    const row = await t.ctx.db.one<{ id: string }>(`INSERT INTO companies (name) VALUES ('Writer Co') RETURNING id`)
    return row!.id
  }

  /** A new company whose newest event, `ahead`, is set far ahead of the clock. */
  async function companyAhead(): Promise<string> {
    const company = await newCompany()
    await t.ctx.db.query(
      `INSERT INTO audit_events (company_id, actor_type, actor_name, verb, entity_type, created_at)
       VALUES ($1, 'system', 'system', 'ahead', 'company', '2999-01-01T00:00:00Z')`,
      [company],
    )
    return company
  }

  /** The company's events in order, with their distance in µs from the one set ahead of the clock. */
  const eventsOf = (company: string) =>
    t.ctx.db.many<{ verb: string; after: number; changes: unknown }>(
      `SELECT verb, (extract(epoch FROM created_at - '2999-01-01T00:00:00Z') * 1000000)::int AS after, changes
         FROM audit_events WHERE company_id = $1 ORDER BY created_at`,
      [company],
    )

  const event = (verb: string) => ({ actor_type: 'system', actor_name: 'system', verb, entity_type: 'company', label: verb })

  it('writes the events in the order given, 1 µs apart, after the newest event even when it is ahead of the clock', async () => {
    const company = await companyAhead()
    const written = await t.ctx.db.one<{ n: number }>('SELECT record_audit_events($1, $2::jsonb) AS n', [
      company,
      JSON.stringify([event('first'), { ...event('second'), changes: { name: ['A', 'B'] } }, event('third')]),
    ])
    expect(written!.n).toBe(3)
    expect(await eventsOf(company)).toEqual([
      { verb: 'ahead', after: 0, changes: {} },
      { verb: 'first', after: 1, changes: {} },
      { verb: 'second', after: 2, changes: { name: ['A', 'B'] } },
      { verb: 'third', after: 3, changes: {} },
    ])
  })

  it.runIf(TEST_DATABASE_URL)('waits for a write holding its instant, then takes the next one instead of failing', async () => {
    const company = await companyAhead()
    const other = openPostgres((await workerDatabaseUrl())!, undefined, 2)
    try {
      let release!: () => void
      const released = new Promise<void>((resolve) => (release = resolve))
      let taken!: () => void
      const instantTaken = new Promise<void>((resolve) => (taken = resolve))
      // Another transaction takes the next instant and stays open.
      const holder = other.transaction(async (tx) => {
        await tx.query('SELECT record_audit_events($1, $2::jsonb)', [company, JSON.stringify([event('holder')])])
        taken()
        await released
      })
      await instantTaken
      const waiting = other.query('SELECT record_audit_events($1, $2::jsonb)', [company, JSON.stringify([event('waiter')])])
      // The waiter blocks on the holder's row; let it get there before the holder commits.
      await new Promise((r) => setTimeout(r, 300))
      release()
      await holder
      await waiting
      expect((await eventsOf(company)).map(({ verb, after }) => ({ verb, after }))).toEqual([
        { verb: 'ahead', after: 0 },
        { verb: 'holder', after: 1 },
        { verb: 'waiter', after: 2 },
      ])
    } finally {
      await other.close()
    }
  })

  it.runIf(TEST_DATABASE_URL)('loses its instant to 25 writes in a row and still writes its events after them', async () => {
    const company = await companyAhead()
    const url = (await workerDatabaseUrl())!
    // Each holder takes the next instant in a transaction left open; the waiter is let lose to them one at a time.
    const holders = Array.from({ length: 25 }, () => new pg.Client({ connectionString: url }))
    const waiter = new pg.Client({ connectionString: url })
    await Promise.all([...holders, waiter].map((c) => c.connect()))
    try {
      const holderPids: number[] = []
      for (const [i, holder] of holders.entries()) {
        await holder.query('BEGIN')
        holderPids.push((await holder.query('SELECT pg_backend_pid() AS pid')).rows[0].pid)
        await holder.query(
          `INSERT INTO audit_events (company_id, actor_type, actor_name, verb, entity_type, created_at)
           VALUES ($1, 'system', 'system', $2, 'company', '2999-01-01T00:00:00Z'::timestamptz + $3 * interval '1 microsecond')`,
          [company, `holder ${i + 1}`, i + 1],
        )
      }
      const waiterPid = (await waiter.query('SELECT pg_backend_pid() AS pid')).rows[0].pid
      const waiting = waiter.query('SELECT record_audit_events($1, $2::jsonb)', [company, JSON.stringify([event('waiter')])])
      let failed: unknown
      waiting.catch((err) => (failed = err))
      for (const [i, holder] of holders.entries()) {
        // Commit each holder only once the waiter is blocked on it: it then loses that attempt.
        await expect
          .poll(async () => {
            if (failed) throw failed
            return (await t.ctx.db.one<{ pids: number[] }>('SELECT pg_blocking_pids($1) AS pids', [waiterPid]))!.pids
          }, { interval: 10 })
          .toEqual([holderPids[i]])
        await holder.query('COMMIT')
      }
      await waiting
      const events = (await eventsOf(company)).map(({ verb, after }) => `${after} ${verb}`)
      expect(events).toEqual(['0 ahead', ...holders.map((_, i) => `${i + 1} holder ${i + 1}`), '26 waiter'])
    } finally {
      await Promise.all([...holders, waiter].map((c) => c.end()))
    }
  })
})

describe('queue_run()', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await testApp()
  })
  afterAll(async () => {
    await t.close()
  })

  it('queues a run with its first transcript entries stamped, and nothing when the identical run is queued', async () => {
    const company = (await t.ctx.db.one<{ id: string }>(`INSERT INTO companies (name) VALUES ('Queue Co') RETURNING id`))!.id
    const agent = (await t.ctx.db.one<{ id: string }>(`INSERT INTO agents (company_id, name) VALUES ($1, 'Ada') RETURNING id`, [company]))!.id
    const transcript = JSON.stringify([{ timestamp: null, role: 'system', text: 'Woken by hand' }])
    const first = await t.ctx.db.many<{ id: string; status: string; trigger: string; transcript_count: number }>(
      `SELECT id, status, trigger, transcript_count FROM queue_run($1, $2, NULL, NULL, 'manual', $3::jsonb)`,
      [company, agent, transcript],
    )
    expect(first).toHaveLength(1)
    expect(first[0]).toMatchObject({ status: 'queued', trigger: 'manual', transcript_count: 1 })
    const entries = await t.ctx.db.many<{ entry: unknown }>('SELECT entry FROM run_transcript_entries WHERE run_id = $1 ORDER BY seq', [first[0].id])
    expect(entries.map((e) => e.entry)).toEqual([{ timestamp: expect.stringMatching(/^\d{4}-/), role: 'system', text: 'Woken by hand' }])
    const again = await t.ctx.db.many(`SELECT id FROM queue_run($1, $2, NULL, NULL, 'manual', '[]'::jsonb)`, [company, agent])
    expect(again).toEqual([])
    const runs = await t.ctx.db.many('SELECT id FROM runs WHERE agent_id = $1', [agent])
    expect(runs).toEqual([{ id: first[0].id }])
  })
})
