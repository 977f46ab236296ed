// Task filters travel as a query string: in the page's URL (so a filtered page can be shared or
// bookmarked) and as the `query` of a saved view.
import type { TaskFilters, TaskStatus } from '#src/client/types.ts'

const SINGLE = ['assignee_agent_id', 'project_id', 'goal_id', 'q'] as const

export function filtersFromQuery(query: string | URLSearchParams): TaskFilters {
  const params = typeof query === 'string' ? new URLSearchParams(query) : query
  const filters: TaskFilters = {}
  for (const name of SINGLE) {
    const value = params.get(name)?.trim()
    if (value) filters[name] = value
  }
  const statuses = params.getAll('status').filter(Boolean) as TaskStatus[]
  if (statuses.length) filters.status = statuses
  if (params.get('created_by') === 'me') filters.created_by = 'me'
  return filters
}

export function queryFromFilters(filters: TaskFilters): string {
  const params = new URLSearchParams()
  for (const name of SINGLE) if (filters[name]) params.set(name, filters[name]!)
  for (const status of [filters.status ?? []].flat()) params.append('status', status)
  if (filters.created_by) params.set('created_by', 'me')
  return params.toString()
}

export const BOARD_COLUMNS: TaskStatus[] = ['backlog', 'todo', 'in_progress', 'in_review', 'blocked', 'done']
