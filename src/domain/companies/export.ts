import { type CompanyExport, EXPORT_FORMAT, EXPORT_VERSION } from '../../contract/company-export.ts'
import type { Queryable } from '../../server/db/db.ts'
import { notFound } from '../../server/errors.ts'
import { type PortableTable, portableColumns } from './portable.ts'

type Row = Record<string, unknown>

/** The records of one table of the company, oldest first, with their portable fields only. */
async function records(q: Queryable, companyId: string, table: PortableTable, order: string): Promise<Row[]> {
  const columns = await portableColumns(q, table)
  const keep = ['id', ...columns.plain, ...Object.keys(columns.refs)]
  const rows = await q.many<{ r: Row }>(`SELECT to_jsonb(t) AS r FROM ${table} t WHERE company_id = $1 ORDER BY ${order}`, [companyId])
  return rows.map(({ r }) => {
    const out: Row = {}
    for (const key of keep) out[key] = r[key] ?? null
    if (table === 'task_comments') out.task_id = r.task_id // to nest it in its task
    return out
  })
}

/**
 * The company as a versioned document: its settings, agents (org chart and adapter settings
 * included), projects, goals, routines, and tasks with their comments. No runs, audit events,
 * members, keys, webhooks or secrets.
 */
export async function exportCompany(q: Queryable, companyId: string): Promise<CompanyExport> {
  const company = await q.one<CompanyExport['company']>(
    'SELECT name, mission, monthly_budget_cents, task_prefix FROM companies WHERE id = $1',
    [companyId],
  )
  if (!company) throw notFound('Company')
  const comments = await records(q, companyId, 'task_comments', 'created_at, id')
  const byTask = new Map<string, Row[]>()
  for (const { task_id: taskId, ...comment } of comments as (Row & { task_id: string })[]) {
    const list = byTask.get(taskId)
    if (list) list.push(comment)
    else byTask.set(taskId, [comment])
  }
  const tasks = (await records(q, companyId, 'tasks', 'number')).map((t) => ({ ...t, comments: byTask.get(t.id as string) ?? [] }))
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exported_at: new Date().toISOString(),
    company,
    agents: await records(q, companyId, 'agents', 'created_at, id'),
    projects: await records(q, companyId, 'projects', 'created_at, id'),
    goals: await records(q, companyId, 'goals', 'created_at, id'),
    routines: await records(q, companyId, 'routines', 'created_at, id'),
    tasks: tasks as CompanyExport['tasks'],
  } as CompanyExport
}
