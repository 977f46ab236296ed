import type { AuditEvent } from '../../contract/activity.ts'
import type { Queryable } from '../../server/db/db.ts'

export type { AuditEvent } from '../../contract/activity.ts'

const COLUMNS = `id, actor_type, actor_name, actor_user_id, actor_agent_id, verb, entity_type, entity_id,
                 label, changes, run_id, created_at`

/** One record whose events alone are wanted (a task's timeline). */
export interface EntityFilter {
  type: string
  id: string
}

/**
 * One page of the audit trail, of the whole company or of one record. created_at is unique
 * per company (audit/record.ts), so "strictly before the last row held" neither skips nor
 * repeats rows. Each shape is its own statement on purpose: written as one (`$2 IS NULL OR
 * created_at < $2`) the cursor is only a filter and a deep page walks every newer row; this way
 * it bounds the index scan — (company_id, created_at DESC) for the company, (company_id,
 * entity_type, entity_id, created_at DESC) for one record — and page 1 costs the same as page
 * 20,000.
 */
export function listActivity(
  db: Queryable, companyId: string, limit: number, before: string | null, entity: EntityFilter | null = null,
): Promise<AuditEvent[]> {
  const where = ['company_id = $1']
  const params: unknown[] = [companyId]
  if (entity) {
    params.push(entity.type, entity.id)
    where.push(`entity_type = $${params.length - 1}`, `entity_id = $${params.length}`)
  }
  if (before !== null) {
    params.push(before)
    where.push(`created_at < $${params.length}::timestamptz`)
  }
  params.push(limit)
  return db.many<AuditEvent>(
    `SELECT ${COLUMNS} FROM audit_events WHERE ${where.join(' AND ')} ORDER BY created_at DESC LIMIT $${params.length}`,
    params,
  )
}
