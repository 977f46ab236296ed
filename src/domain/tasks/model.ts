// The Task record as the API returns it. The key is the company's prefix and the task number.

export const TASK_STATUSES = ['backlog', 'todo', 'in_progress', 'in_review', 'blocked', 'done', 'cancelled'] as const
export const TASK_PRIORITIES = ['urgent', 'high', 'medium', 'low', 'none'] as const
export type TaskStatus = (typeof TASK_STATUSES)[number]

/** Statuses in which assigning a task queues no run. */
export const NO_RUN_STATUSES: readonly string[] = ['backlog', 'done', 'cancelled']

export interface Task {
  id: string
  key: string
  number: number
  title: string
  description: string | null
  status: TaskStatus
  priority: string
  assignee_agent_id: string | null
  project_id: string | null
  goal_id: string | null
  parent_id: string | null
  due_date: string | null
  sort_order: number
  created_by_agent_id: string | null
  created_by_user_id: string | null
  started_at: string | null
  completed_at: string | null
  created_at: string
  updated_at: string
}

/** Fields a client sets, in audit order. */
export const TASK_FIELDS = [
  'title', 'description', 'status', 'priority', 'assignee_agent_id', 'project_id', 'goal_id', 'parent_id', 'due_date', 'sort_order',
] as const
export type TaskField = (typeof TASK_FIELDS)[number]

/** SELECT of full Task records from `tasks t` joined to its company `c` (for the key prefix). */
export const TASK_SELECT = `
  SELECT t.id, c.task_prefix || '-' || t.number AS key, t.number, t.title, t.description, t.status, t.priority,
         t.assignee_agent_id, t.project_id, t.goal_id, t.parent_id, t.due_date, t.sort_order,
         t.created_by_agent_id, t.created_by_user_id, t.started_at, t.completed_at, t.created_at, t.updated_at
    FROM tasks t JOIN companies c ON c.id = t.company_id`

export function taskLabel(task: Pick<Task, 'key' | 'title'>): string {
  return `${task.key} ${task.title}`
}
