// Helpers shared by the company-data tests: live events as a list, audit rows, raw runs.
import type { AppContext } from '../../src/server/context.ts'
import type { AuditEvent } from '../../src/domain/activity/service.ts'
import type { CompanyEvent } from '../../src/server/events/bus.ts'

/** Every event published for the company from now on (the in-process bus delivers synchronously). */
export function recordEvents(ctx: AppContext, companyId: string): CompanyEvent[] {
  const events: CompanyEvent[] = []
  ctx.bus.subscribe(companyId, (event) => events.push(event))
  return events
}

/** An audit event as the activity list returns it, without its id and timestamp. */
export type AuditRow = Omit<AuditEvent, 'id' | 'created_at'>

/** Audit events of the company, oldest first, optionally only those about one entity. */
export function auditRows(ctx: AppContext, companyId: string, entityId?: string): Promise<AuditRow[]> {
  return ctx.db.many<AuditRow>(
    `SELECT actor_type, actor_name, actor_user_id, actor_agent_id, verb, entity_type, entity_id, label, changes, run_id
       FROM audit_events WHERE company_id = $1 AND ($2::uuid IS NULL OR entity_id = $2::uuid)
      ORDER BY created_at`,
    [companyId, entityId ?? null],
  )
}

/** A run written straight to the database (the runner protocol is tested elsewhere). */
export async function insertRun(
  ctx: AppContext,
  run: { companyId: string; agentId: string; status?: string; taskId?: string | null; costCents?: number; createdAt?: string },
): Promise<string> {
  const row = await ctx.db.one<{ id: string }>(
    `INSERT INTO runs (company_id, agent_id, task_id, status, trigger, cost_cents, created_at, started_at)
     VALUES ($1, $2, $3, $4, 'manual', $5, coalesce($6::timestamptz, now()), CASE WHEN $4 <> 'queued' THEN now() END)
     RETURNING id`,
    [run.companyId, run.agentId, run.taskId ?? null, run.status ?? 'queued', run.costCents ?? 0, run.createdAt ?? null],
  )
  return row!.id
}

/** Rows of a table belonging to the company (to show a failed write left nothing). */
export async function countRows(ctx: AppContext, table: 'tasks' | 'runs' | 'audit_events' | 'agents' | 'approvals', companyId: string): Promise<number> {
  const row = await ctx.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE company_id = $1`, [companyId])
  return row!.n
}
