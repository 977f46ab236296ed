import { type Static, Type } from 'typebox'
import { Nullable, NullableText, NullableTimestampInput, NullableUuid, StringEnum, Timestamp, Uuid, OrNull } from './common.ts'
import { TASK_PRIORITIES, TASK_STATUSES, TASK_TITLE_MAX } from './task-values.ts'

// Tasks. A task is named by its UUID or its key (the company's prefix and the task number).

export { TASK_PRIORITIES, TASK_STATUSES }
export const TaskStatus = StringEnum(TASK_STATUSES)
export type TaskStatus = Static<typeof TaskStatus>
export const TaskPriority = StringEnum(TASK_PRIORITIES)
export type TaskPriority = Static<typeof TaskPriority>

/** Statuses in which assigning a task queues no run. */
export const NO_RUN_STATUSES: readonly TaskStatus[] = ['backlog', 'done', 'cancelled']

export function queuesRun(status: string): boolean {
  return !(NO_RUN_STATUSES as readonly string[]).includes(status)
}

const Title = Type.String({ minLength: 1, maxLength: TASK_TITLE_MAX })
const fields = {
  description: Type.Optional(NullableText),
  status: Type.Optional(TaskStatus),
  priority: Type.Optional(TaskPriority),
  assignee_agent_id: Type.Optional(NullableUuid),
  project_id: Type.Optional(NullableUuid),
  goal_id: Type.Optional(NullableUuid),
  parent_id: Type.Optional(NullableUuid),
  due_date: Type.Optional(NullableTimestampInput),
  sort_order: Type.Optional(Type.Integer({ minimum: -2147483648, maximum: 2147483647 })),
  /** Acting as the agent of this running run. */
  run_id: Type.Optional(NullableUuid),
}

export const TaskCreateBody = Type.Object({ title: Title, ...fields })
export type TaskCreate = Static<typeof TaskCreateBody>
export const TaskPatchBody = Type.Object({ title: Type.Optional(Title), ...fields })
export type TaskUpdate = Static<typeof TaskPatchBody>

export const ListTasksQuery = Type.Object({
  status: Type.Optional(Type.Array(TaskStatus)),
  assignee_agent_id: Type.Optional(Uuid),
  project_id: Type.Optional(Uuid),
  goal_id: Type.Optional(Uuid),
  parent_id: Type.Optional(Uuid),
  q: Type.Optional(Type.String()),
  created_by: Type.Optional(StringEnum(['me'])),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 500 })),
})
/** As a client passes them: one status or several. */
export type TaskFilters = Omit<Static<typeof ListTasksQuery>, 'status'> & { status?: TaskStatus | TaskStatus[] }

/** task_ref is a UUID or a key, so any string (unknown ones are 404). */
export const TaskParams = Type.Object({ company_id: Uuid, task_ref: Type.String() })

export const Task = Type.Object({
  id: Uuid,
  key: Type.String(),
  number: Type.Integer(),
  title: Type.String(),
  description: OrNull(Type.String()),
  status: TaskStatus,
  priority: TaskPriority,
  assignee_agent_id: OrNull(Uuid),
  project_id: OrNull(Uuid),
  goal_id: OrNull(Uuid),
  parent_id: OrNull(Uuid),
  due_date: OrNull(Timestamp),
  sort_order: Type.Integer(),
  created_by_agent_id: OrNull(Uuid),
  created_by_user_id: OrNull(Uuid),
  started_at: OrNull(Timestamp),
  completed_at: OrNull(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
})
export type Task = Static<typeof Task>
