// Task filters travel in the page's URL as typed search parameters (so a filtered page can be
// shared or bookmarked: `?q=launch&status=todo,blocked`), and as the `query` string of a saved view.
import { TASK_STATUSES, type TaskFilters, type TaskStatus } from '#src/client/types.ts'

const SINGLE = ['assignee_agent_id', 'project_id', 'goal_id', 'q'] as const

/** The tasks page's search parameters: plain strings, statuses as a comma-separated list. */
export interface TaskSearch {
  q?: string
  status?: string
  assignee_agent_id?: string
  project_id?: string
  goal_id?: string
  created_by?: 'me'
}

export function filtersFromQuery(query: string | URLSearchParams): TaskFilters {
  const params = typeof query === 'string' ? new URLSearchParams(query) : query
  const filters: TaskFilters = {}
  for (const name of SINGLE) {
    const value = params.get(name)?.trim()
    if (value) filters[name] = value
  }
  const statuses = params.getAll('status').flatMap((s) => s.split(',')).filter((s): s is TaskStatus => TASK_STATUSES.includes(s as TaskStatus))
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

export function searchFromFilters(filters: TaskFilters): TaskSearch {
  const search: TaskSearch = {}
  for (const name of SINGLE) if (filters[name]) search[name] = filters[name]
  const statuses = [filters.status ?? []].flat()
  if (statuses.length) search.status = statuses.join(',')
  if (filters.created_by) search.created_by = 'me'
  return search
}

export const filtersFromSearch = (search: TaskSearch): TaskFilters => filtersFromQuery(new URLSearchParams(search as Record<string, string>))

/** The route's search validator: unknown keys, blank values and unknown statuses are dropped. */
export const cleanTaskSearch = (raw: Record<string, unknown>): TaskSearch =>
  searchFromFilters(filtersFromQuery(new URLSearchParams(Object.entries(raw).filter((e): e is [string, string] => typeof e[1] === 'string'))))

export const BOARD_COLUMNS: TaskStatus[] = ['backlog', 'todo', 'in_progress', 'in_review', 'blocked', 'done']
