// The Task record as the API returns it (src/contract/tasks.ts). The key is the company's prefix and the task number.
import { Task as TaskRecord, type Task } from '../../contract/tasks.ts'

export { NO_RUN_STATUSES, TASK_PRIORITIES, TASK_STATUSES, type Task, type TaskStatus } from '../../contract/tasks.ts'

/** Fields a client sets, in audit order. */
export const TASK_FIELDS = [
  'title', 'description', 'status', 'priority', 'assignee_agent_id', 'project_id', 'goal_id', 'parent_id', 'due_date', 'sort_order',
] as const
export type TaskField = (typeof TASK_FIELDS)[number]

/** The Task record's fields as SQL over `tasks t` joined to its company `c` (for the key prefix). */
const TASK_RECORD: Record<keyof Task, string> = {
  id: 't.id', key: "c.task_prefix || '-' || t.number", number: 't.number', title: 't.title', description: 't.description',
  status: 't.status', priority: 't.priority', assignee_agent_id: 't.assignee_agent_id', project_id: 't.project_id',
  goal_id: 't.goal_id', parent_id: 't.parent_id', due_date: 't.due_date', sort_order: 't.sort_order',
  created_by_agent_id: 't.created_by_agent_id', created_by_user_id: 't.created_by_user_id', started_at: 't.started_at',
  completed_at: 't.completed_at', created_at: 't.created_at', updated_at: 't.updated_at',
}
/** A field the contract declares as a timestamp. */
const isTimestamp = (field: string) => (TaskRecord.properties as Record<string, { format?: string }>)[field].format === 'date-time'

/** SELECT of full Task records from `tasks t` joined to its company `c` (for the key prefix). */
export const TASK_SELECT = `
  SELECT ${Object.entries(TASK_RECORD).map(([field, sql]) => `${sql} AS ${field}`).join(', ')}
    FROM tasks t JOIN companies c ON c.id = t.company_id`

/**
 * The columns of TASK_SELECT as the API writes them, for records that the database turns into
 * JSON itself (the task list): timestamps in the form db/types.ts gives them (UTC, six digits
 * of fraction, `+00:00`), every other value as JSON has it already.
 */
export const TASK_JSON_COLUMNS = Object.entries(TASK_RECORD)
  .map(([field, sql]) => `${isTimestamp(field) ? `to_char(${sql} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"')` : sql} AS ${field}`)
  .join(', ')

export function taskLabel(task: Pick<Task, 'key' | 'title'>): string {
  return `${task.key} ${task.title}`
}
