import type { Queryable } from '../../server/db/db.ts'
import { TASK_JSON_COLUMNS } from './model.ts'

export interface TaskFilters {
  status?: string[]
  assignee_agent_id?: string
  project_id?: string
  goal_id?: string
  parent_id?: string
  q?: string
  created_by?: 'me'
  limit: number
}

/** `text` as a LIKE pattern that matches it literally (backslash is the default escape). */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`)
}

/**
 * Tasks matching every given filter, ordered by sort_order then newest number, as the JSON
 * array the API answers. Each filter has an index ending in that order (001_baseline.sql), so a
 * page stops after `limit` rows. The database writes the JSON (the same records as
 * TASK_SELECT): a page of 500 tasks is 2,000 timestamps and 10,000 other values that the
 * server otherwise parsed into objects, kept and serialised again (docs/benchmarks.md,
 * workload 8).
 */
export async function listTasksJson(db: Queryable, companyId: string, userId: string, filters: TaskFilters): Promise<string> {
  const params: unknown[] = [companyId]
  const where = ['t.company_id = $1']
  const add = (condition: (p: string) => string, value: unknown) => {
    params.push(value)
    where.push(condition(`$${params.length}`))
  }
  if (filters.status?.length) add((p) => `t.status = ANY(${p}::text[])`, filters.status)
  if (filters.assignee_agent_id) add((p) => `t.assignee_agent_id = ${p}`, filters.assignee_agent_id)
  if (filters.project_id) add((p) => `t.project_id = ${p}`, filters.project_id)
  if (filters.goal_id) add((p) => `t.goal_id = ${p}`, filters.goal_id)
  if (filters.parent_id) add((p) => `t.parent_id = ${p}`, filters.parent_id)
  if (filters.created_by === 'me') add((p) => `t.created_by_user_id = ${p}`, userId)
  if (filters.q) add((p) => `(t.title ILIKE ${p} OR t.description ILIKE ${p})`, `%${likeLiteral(filters.q)}%`)
  params.push(filters.limit)
  // row_to_json writes no spaces (json_build_object would add three bytes a field).
  const row = await db.one<{ tasks: string }>(
    `SELECT '[' || coalesce(string_agg(row_to_json(page)::text, ',' ORDER BY page.sort_order, page.number DESC), '') || ']' AS tasks
       FROM (SELECT ${TASK_JSON_COLUMNS}
               FROM tasks t JOIN companies c ON c.id = t.company_id
              WHERE ${where.join(' AND ')}
              ORDER BY t.sort_order, t.number DESC
              LIMIT $${params.length}) page`,
    params,
  )
  return row!.tasks
}
