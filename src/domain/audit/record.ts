import type { Queryable } from '../../server/db/db.ts'
import type { Tx } from '../../server/db/write.ts'

import type { Actor } from '../../server/actor.ts'

export type Changes = Record<string, [unknown, unknown]>

export interface AuditEntry {
  companyId: string
  actor: Actor
  verb: string
  entityType: 'company' | 'agent' | 'task' | 'comment' | 'goal' | 'project' | 'routine' | 'run' | 'approval' | 'member' | 'webhook' | 'document' | 'skill'
  entityId: string | null
  label: string | null
  changes?: Changes
  /** Run behind an agent-made change; defaults to the agent actor's run. */
  runId?: string | null
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
 * The actor columns of an audit event; `runId` defaults to the agent actor's run. As JSON they
 * are the actor part of an event for record_audit_events().
 */
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
 * Writes audit events of one company, in the order given, 5,000 a statement, through
 * record_audit_events() (db/functions/record_audit_events.sql): the one writer of audit_events,
 * which also picks their instants.
 */
async function insertAudits(tx: Queryable, entries: AuditEntry[]): Promise<void> {
  for (let start = 0; start < entries.length; start += AUDIT_CHUNK) {
    await tx.query('SELECT record_audit_events($1, $2::jsonb)', [entries[0].companyId, auditEventsJson(entries.slice(start, start + AUDIT_CHUNK))])
  }
}

/** Events one statement writes at most: a company import writes one a record, 100,000 and more. */
const AUDIT_CHUNK = 5_000

/** The `events` argument of record_audit_events() for these entries. */
function auditEventsJson(entries: Omit<AuditEntry, 'companyId'>[]): string {
  return JSON.stringify(entries.map((entry) => ({
    ...actorColumns(entry.actor, entry.runId),
    verb: entry.verb,
    entity_type: entry.entityType,
    entity_id: entry.entityId,
    label: entry.label,
    changes: entry.changes ?? {},
  })))
}
