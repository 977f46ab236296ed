// Which columns of a company's tables travel in an export, found from the database catalogue,
// so that a column added by a later migration (agents' adapter settings, spend controls) is
// exported and imported without a change here.
import type { Queryable } from '../../server/db/db.ts'

/** The tables a document holds, in the order an import writes them (referenced before referring). */
export const PORTABLE_TABLES = ['agents', 'projects', 'goals', 'routines', 'tasks', 'task_comments'] as const
export type PortableTable = (typeof PORTABLE_TABLES)[number]

/** Columns that describe this installation's bookkeeping, not the company: never exported. */
const LOCAL: Record<PortableTable, string[]> = {
  agents: ['last_activity', 'breaker_reset_at'],
  projects: [],
  goals: [],
  routines: ['last_run_at'],
  tasks: [],
  task_comments: ['task_id'], // comments are nested in their task
}

export interface PortableColumns {
  /** Columns copied as they are. */
  plain: string[]
  /** Columns holding the id of another exported record: column -> table. */
  refs: Record<string, PortableTable>
}

const CATALOGUE = `
  SELECT a.attname AS name,
         (SELECT f.confrelid::regclass::text FROM pg_constraint f
           WHERE f.conrelid = a.attrelid AND f.contype = 'f' AND a.attnum = ANY (f.conkey) LIMIT 1) AS refers_to
    FROM pg_attribute a
   WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
   ORDER BY a.attnum`

/**
 * The portable columns of a table: everything but the id, the company, `updated_at`, local
 * bookkeeping, and links to what a document does not hold (people, runs, approvals), whether
 * declared as foreign keys or named `run_id` / `*_run_id`.
 */
export async function portableColumns(q: Queryable, table: PortableTable): Promise<PortableColumns> {
  const rows = await q.many<{ name: string; refers_to: string | null }>(CATALOGUE, [table])
  const out: PortableColumns = { plain: [], refs: {} }
  for (const { name, refers_to: target } of rows) {
    if (name === 'id' || name === 'company_id' || name === 'updated_at' || LOCAL[table].includes(name)) continue
    if (name === 'run_id' || name.endsWith('_run_id')) continue
    if (target === null) out.plain.push(name)
    else if ((PORTABLE_TABLES as readonly string[]).includes(target)) out.refs[name] = target as PortableTable
  }
  return out
}
