import type { Queryable } from '../../server/db/db.ts'

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
  entityType: 'company' | 'agent' | 'task' | 'comment' | 'goal' | 'project' | 'routine' | 'run' | 'approval'
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

/**
 * Writes one audit event in the caller's transaction.
 *
 * created_at is made unique per company: the database clock, or 1 µs after the company's
 * newest event when the clock has not moved on (many events in one statement or one instant).
 * Two transactions that pick the same instant meet on the unique index; the loser retries
 * after the winner commits. This lets the activity list page by created_at alone.
 */
export async function recordAudit(tx: Queryable, entry: AuditEntry): Promise<void> {
  const { actor } = entry
  const runId = entry.runId !== undefined ? entry.runId : actor.type === 'agent' ? actor.runId : null
  const params = [
    entry.companyId,
    actor.type,
    actor.name,
    actor.type === 'user' ? actor.userId : null,
    actor.type === 'agent' ? actor.agentId : null,
    entry.verb,
    entry.entityType,
    entry.entityId,
    entry.label,
    JSON.stringify(entry.changes ?? {}),
    runId,
  ]
  for (let attempt = 0; attempt < 20; attempt++) {
    const inserted = await tx.one(
      `INSERT INTO audit_events (company_id, actor_type, actor_name, actor_user_id, actor_agent_id,
                                 verb, entity_type, entity_id, label, changes, run_id, created_at)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11,
              greatest(clock_timestamp(),
                       (SELECT max(created_at) FROM audit_events WHERE company_id = $1) + interval '1 microsecond')
       ON CONFLICT (company_id, created_at) DO NOTHING
       RETURNING id`,
      params,
    )
    if (inserted) return
  }
  throw new Error('could not allocate an audit timestamp')
}
