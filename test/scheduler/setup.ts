// Rows the scheduler tests start from, written straight to the database: the scheduler reads
// the database, and these tests are about when it fires, not about the endpoints that make rows.
import { Writable } from 'node:stream'
import pino from 'pino'
import type { AppContext } from '../../src/server/context.ts'
import type { Queryable } from '../../src/server/db/db.ts'

// The scheduler acts on every company in its database, so its tests get a database of their
// own (privateApp): other test files' agents and routines are never fired by these schedulers.
export { privateApp, waitFor } from '../helpers.ts'

export async function makeCompany(db: Queryable, name = 'Scheduler Co'): Promise<string> {
  const row = await db.one<{ id: string }>(`INSERT INTO companies (name, task_prefix) VALUES ($1, 'SCH') RETURNING id`, [name])
  return row!.id
}

export async function makeAgent(
  db: Queryable,
  companyId: string,
  fields: { name?: string; status?: string; heartbeat_cron?: string | null } = {},
): Promise<string> {
  const row = await db.one<{ id: string }>(
    `INSERT INTO agents (company_id, name, status, heartbeat_cron, adapter) VALUES ($1, $2, $3, $4, 'simulated') RETURNING id`,
    [companyId, fields.name ?? 'Ada', fields.status ?? 'idle', fields.heartbeat_cron ?? null],
  )
  return row!.id
}

export async function makeRoutine(
  db: Queryable,
  companyId: string,
  agentId: string,
  fields: { cron: string; title?: string; enabled?: boolean },
): Promise<string> {
  const row = await db.one<{ id: string }>(
    `INSERT INTO routines (company_id, agent_id, title, cron, enabled) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [companyId, agentId, fields.title ?? 'Daily report', fields.cron, fields.enabled ?? true],
  )
  return row!.id
}

/** The context with a logger whose lines the test can read. */
export function withCapturedLog(ctx: AppContext): { ctx: AppContext; lines: () => any[] } {
  const captured: any[] = []
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) captured.push(JSON.parse(line))
      done()
    },
  })
  return { ctx: { ...ctx, log: pino({ level: 'info' }, stream) }, lines: () => captured }
}

/**
 * A cron whose slots are hours apart: a running scheduler's own timer does not reach one during
 * a test, so it fires only when the test ticks the scheduler past it (`scheduler.tick(later())`).
 */
export const DAILY = '0 3 * * *'

let daysAhead = 0
/**
 * A time ahead of the clock, each a day later than the one before: every DAILY slot the
 * scheduler holds is due at it, and one slot of each fires per tick.
 */
export function later(): Date {
  return new Date(Date.now() + ++daysAhead * 86_400_000)
}
