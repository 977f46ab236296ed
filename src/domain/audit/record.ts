import type { Queryable } from '../../server/db/db.ts'
import type { Tx } from '../../server/db/write.ts'

/** Who made a change, as the audit trail names it. */
export type Actor =
  | { type: 'user'; userId: string; name: string }
  | { type: 'agent'; agentId: string; name: string; runId: string | null }
  | { type: 'system'; name: string } // the agent's name when an agent is involved, else "system"

export type Changes = Record<string, [unknown, unknown]>

export interface AuditEntry {
  companyId: string
  actor: Actor
  verb: string
  entityType: 'company' | 'agent' | 'task' | 'comment' | 'goal' | 'project' | 'routine' | 'run' | 'approval' | 'member' | 'webhook'
  entityId: string | null
  label: string | null
  changes?: Changes
  /** Run behind an agent-made change; defaults to the agent actor's run. */
  runId?: string | null
}

/** `system` actor named after the agent involved, or plain `system`. */
export function systemActor(agentName?: string | null): Actor {
  return { type: 'system', name: agentName ?? 'system' }
}

/** Field-level changes {field: [old, new]} for the fields whose value differs. */
export function diff(before: object, after: object, fields: readonly string[]): Changes {
  const changes: Changes = {}
  for (const field of fields) {
    const a = (before as Record<string, unknown>)[field] ?? null
    const b = (after as Record<string, unknown>)[field] ?? null
    if (JSON.stringify(a) !== JSON.stringify(b)) changes[field] = [a, b]
  }
  return changes
}

/** The audit events of each write transaction not written yet (see recordAudit). */
const batches = new WeakMap<Queryable, AuditEntry[]>()

/**
 * Records one audit event in the caller's transaction. In a write (db/write.ts) the events are
 * collected and written together in one statement just before COMMIT, still in the same
 * transaction as the change: a claim (run started, task moved) is one round trip to the
 * database fewer, an agent's termination (a cancel per run) many fewer. Elsewhere (operator
 * commands, tests) it is written at once.
 */
export async function recordAudit(tx: Queryable | Tx, entry: AuditEntry): Promise<void> {
  if (!('beforeCommit' in tx)) return insertAudits(tx, [entry])
  let batch = batches.get(tx)
  if (!batch) {
    const entries: AuditEntry[] = (batch = [])
    batches.set(tx, entries)
    tx.beforeCommit('audit', async () => {
      // One statement per company (a scheduler sweep expires runs of several).
      for (const companyId of new Set(entries.map((e) => e.companyId))) {
        await insertAudits(tx, entries.filter((e) => e.companyId === companyId))
      }
    })
  }
  batch.push(entry)
}

/**
 * SQL for the instant of a company's next audit event (`company` is an SQL expression such as
 * `$1`): the database clock, or 1 µs after the company's newest event when the clock has not
 * moved on. Events written together take it and the following microseconds. Two transactions
 * that pick the same instant meet on the unique index audit_events_page, and the loser tries
 * again after the winner committed. created_at is thus unique per company, which lets the
 * activity list page by created_at alone. claim_run (migration 065) spells the same
 * expression out in SQL.
 */
export function auditInstantSql(company: string): string {
  return `greatest(clock_timestamp(), (SELECT max(created_at) FROM audit_events WHERE company_id = ${company}) + interval '1 microsecond')`
}

/** True for the error of an audit event that met another one's instant (see auditInstantSql). */
export function isAuditInstantTaken(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string; message?: string }
  return e?.code === '23505' && (e.constraint === 'audit_events_page' || String(e.message).includes('audit_events_page'))
}

/** The actor columns of an audit event; `runId` defaults to the agent actor's run. */
export function actorColumns(actor: Actor, runId?: string | null) {
  return {
    actor_type: actor.type,
    actor_name: actor.name,
    actor_user_id: actor.type === 'user' ? actor.userId : null,
    actor_agent_id: actor.type === 'agent' ? actor.agentId : null,
    run_id: runId !== undefined ? runId : actor.type === 'agent' ? actor.runId : null,
  }
}

/**
 * Writes audit events of one company in one statement, in the order given, 1 µs apart from
 * the instant auditInstantSql picks. Rows that met another transaction's instants are skipped
 * (ON CONFLICT, once the other committed); then this write takes its rows back and tries again.
 */
async function insertAudits(tx: Queryable, entries: AuditEntry[]): Promise<void> {
  const { companyId } = entries[0]
  const rows = JSON.stringify(entries.map((entry) => ({
    ...actorColumns(entry.actor, entry.runId),
    verb: entry.verb,
    entity_type: entry.entityType,
    entity_id: entry.entityId,
    label: entry.label,
    changes: entry.changes ?? {},
  })))
  for (let attempt = 0; attempt < 20; attempt++) {
    const inserted = await tx.many<{ id: string }>(
      `INSERT INTO audit_events (company_id, actor_type, actor_name, actor_user_id, actor_agent_id,
                                 verb, entity_type, entity_id, label, changes, run_id, created_at)
       SELECT $1, e.actor_type, e.actor_name, e.actor_user_id, e.actor_agent_id, e.verb, e.entity_type, e.entity_id,
              e.label, e.changes, e.run_id, start.at + (e.n - 1) * interval '1 microsecond'
         FROM ROWS FROM (jsonb_to_recordset($2::jsonb)
                AS (actor_type text, actor_name text, actor_user_id uuid, actor_agent_id uuid, verb text,
                    entity_type text, entity_id uuid, label text, changes jsonb, run_id uuid))
              WITH ORDINALITY AS e(actor_type, actor_name, actor_user_id, actor_agent_id, verb, entity_type, entity_id,
                                   label, changes, run_id, n),
              (SELECT ${auditInstantSql('$1')} AS at) start
        ORDER BY e.n
       ON CONFLICT (company_id, created_at) DO NOTHING
       RETURNING id`,
      [companyId, rows],
    )
    if (inserted.length === entries.length) return
    if (inserted.length > 0) await tx.query('DELETE FROM audit_events WHERE id = ANY($1::uuid[])', [inserted.map((r) => r.id)])
  }
  throw new Error('could not allocate audit timestamps')
}
