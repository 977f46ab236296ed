// The Task record as the API returns it (src/contract/tasks.ts). The key is the company's prefix and the task number.
import type { Task } from '../../contract/tasks.ts'

export { NO_RUN_STATUSES, TASK_PRIORITIES, TASK_STATUSES, type Task, type TaskStatus } from '../../contract/tasks.ts'

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
