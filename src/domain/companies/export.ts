import { EXPORT_FORMAT, EXPORT_VERSION } from '../../contract/company-export.ts'
import type { Queryable } from '../../server/db/db.ts'
import { fullStamps } from '../../server/db/types.ts'
import { notFound } from '../../server/errors.ts'
import { type PortableTable, portableColumns } from './portable.ts'

/** SQL: one record of `table` (as `t`) with its portable fields, as a JSON object; `extra` adds fields. */
async function record(q: Queryable, table: PortableTable, alias: string, extra = ''): Promise<string> {
  const columns = await portableColumns(q, table)
  const keep = ['id', ...columns.plain, ...Object.keys(columns.refs)].map((c) => `${alias}."${c}"`)
  return `(SELECT to_json(r) FROM (SELECT ${keep.join(', ')}${extra}) r)`
}

/** SQL: the company's records of `table`, oldest first, as a JSON array. */
async function records(q: Queryable, table: 'agents' | 'projects' | 'goals' | 'routines'): Promise<string> {
  return `(SELECT coalesce(json_agg(${await record(q, table, 't')} ORDER BY t.created_at, t.id), '[]') FROM ${table} t WHERE t.company_id = $1)`
}

/**
 * The company as a versioned document, as JSON text: its settings, agents (org chart, adapter
 * settings and skills included), projects, goals, routines, tasks with their comments, skills,
 * and documents (agents' memories too, without their versions). No runs, audit events,
 * members, keys, webhooks or secrets.
 *
 * PostgreSQL writes the whole document in one statement (one snapshot, so its references agree)
 * and the text is sent as it comes: a company of 100,000 tasks is a document of about 50 MB,
 * which as records in this process took its memory from 0.2 to 1.3 GB.
 */
export async function exportCompanyJson(q: Queryable, companyId: string): Promise<string> {
  const comment = await record(q, 'task_comments', 'c')
  const comments = `(SELECT coalesce(json_agg(${comment} ORDER BY c.created_at, c.id), '[]') FROM task_comments c WHERE c.task_id = t.id AND c.company_id = $1)`
  const row = await q.one<{ doc: string | null }>(
    `SELECT (json_build_object(
       'format', $2::text, 'version', $3::int, 'exported_at', $4::text,
       'company', (SELECT to_json(c) FROM (SELECT name, mission, monthly_budget_cents, task_prefix FROM companies WHERE id = $1) c),
       'agents', ${await records(q, 'agents')},
       'projects', ${await records(q, 'projects')},
       'goals', ${await records(q, 'goals')},
       'routines', ${await records(q, 'routines')},
       'tasks', (SELECT coalesce(json_agg(${await record(q, 'tasks', 't', `, ${comments} AS comments`)} ORDER BY t.number), '[]')
                  FROM tasks t WHERE t.company_id = $1),
       'skills', (SELECT coalesce(json_agg(s ORDER BY s.name), '[]') FROM (
                    SELECT id, name, description, body, files, created_at FROM skills WHERE company_id = $1) s),
       'documents', (SELECT coalesce(json_agg(d ORDER BY d.created_at, d.id), '[]') FROM (
                    SELECT id, title, body, tags, project_id, agent_id, pinned, agent_editable, created_at FROM documents WHERE company_id = $1) d)
     ))::text AS doc
     WHERE EXISTS (SELECT 1 FROM companies WHERE id = $1)`,
    [companyId, EXPORT_FORMAT, EXPORT_VERSION, new Date().toISOString()],
  )
  if (!row?.doc) throw notFound('Company')
  return fullStamps(row.doc)
}
