import type { Queryable } from '../../server/db/db.ts'
import { TASK_SELECT, type Task } from './model.ts'

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
 * Tasks matching every given filter, ordered by sort_order then newest number. Each filter
 * has an index ending in that order (001_schema.sql), so a page stops after `limit` rows.
 */
export function listTasks(db: Queryable, companyId: string, userId: string, filters: TaskFilters): Promise<Task[]> {
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
  return db.many<Task>(
    `${TASK_SELECT}
      WHERE ${where.join(' AND ')}
      ORDER BY t.sort_order, t.number DESC
      LIMIT $${params.length}`,
    params,
  )
}
