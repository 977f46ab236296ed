import type { Queryable } from '../../server/db/db.ts'
import { notFound } from '../../server/errors.ts'

// Lookups of rows that a request names by id. A row of another company is treated exactly
// like a missing one (404), so ids never reveal what other companies hold.

type Table = 'agents' | 'projects' | 'goals' | 'tasks'

/** The row's chosen columns if it is in the company, else `404 <entity> not found`. */
export async function findInCompany<T = { id: string }>(
  q: Queryable,
  table: Table,
  companyId: string,
  id: string,
  entity: string,
  columns = 'id',
): Promise<T> {
  const row = await q.one<T>(`SELECT ${columns} FROM ${table} WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2`, [id, companyId])
  if (!row) throw notFound(entity)
  return row
}

/** Tree links: the manager of an agent, the parent of a goal or task. */
const PARENT_COLUMN: Record<'agents' | 'goals' | 'tasks', string> = {
  agents: 'reports_to_id',
  goals: 'parent_id',
  tasks: 'parent_id',
}

/**
 * True when walking up the tree from `startId` (the proposed new parent) reaches `nodeId`:
 * making startId the parent of nodeId would close a cycle. UNION (not UNION ALL) stops the
 * walk even if the stored data already holds a loop.
 */
export async function chainReaches(q: Queryable, table: 'agents' | 'goals' | 'tasks', companyId: string, startId: string, nodeId: string): Promise<boolean> {
  const parent = PARENT_COLUMN[table]
  const row = await q.one(
    `WITH RECURSIVE up(id, parent) AS (
       SELECT id, ${parent} FROM ${table} WHERE id = $1 AND company_id IS NOT DISTINCT FROM $3
       UNION
       SELECT t.id, t.${parent} FROM ${table} t JOIN up ON t.id = up.parent WHERE t.company_id IS NOT DISTINCT FROM $3
     )
     SELECT 1 AS hit FROM up WHERE id = $2 LIMIT 1`,
    [startId, nodeId, companyId],
  )
  return row !== null
}
