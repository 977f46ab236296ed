import type { AuditEvent } from '../../contract/activity.ts'
import type { Queryable } from '../../server/db/db.ts'

export type { AuditEvent } from '../../contract/activity.ts'

const COLUMNS = `id, actor_type, actor_name, actor_user_id, actor_agent_id, verb, entity_type, entity_id,
                 label, changes, run_id, created_at`

/**
 * One page of the audit trail. created_at is unique per company (audit/record.ts), so
 * "strictly before the last row held" neither skips nor repeats rows. The first page and the
 * later ones are separate statements on purpose: written as one (`$2 IS NULL OR created_at <
 * $2`) the cursor is only a filter and a deep page walks every newer row; this way it bounds
 * the (company_id, created_at DESC) index scan, and page 1 costs the same as page 20,000.
 */
export function listActivity(db: Queryable, companyId: string, limit: number, before: string | null): Promise<AuditEvent[]> {
  if (before === null) {
    return db.many<AuditEvent>(
      `SELECT ${COLUMNS} FROM audit_events WHERE company_id = $1 ORDER BY created_at DESC LIMIT $2`,
      [companyId, limit],
    )
  }
  return db.many<AuditEvent>(
    `SELECT ${COLUMNS} FROM audit_events
      WHERE company_id = $1 AND created_at < $2::timestamptz
      ORDER BY created_at DESC LIMIT $3`,
    [companyId, before, limit],
  )
}
