import { idParams, nullable, nullableText, nullableTimestamp, nullableUuid, uuid } from '../companies/json-schema.ts'
import { TASK_PRIORITIES, TASK_STATUSES } from './model.ts'

const title = { type: 'string', minLength: 1, maxLength: 300 } as const
const status = { type: 'string', enum: [...TASK_STATUSES] } as const
const fields = {
  description: nullableText,
  status,
  priority: { type: 'string', enum: [...TASK_PRIORITIES] },
  assignee_agent_id: nullableUuid,
  project_id: nullableUuid,
  goal_id: nullableUuid,
  parent_id: nullableUuid,
  due_date: nullableTimestamp,
  sort_order: { type: 'integer', minimum: -2147483648, maximum: 2147483647 },
  run_id: nullable(uuid),
} as const

export const createTaskBody = { type: 'object', required: ['title'], properties: { title, ...fields } } as const
export const patchTaskBody = { type: 'object', properties: { title, ...fields } } as const

export const listTasksQuery = {
  type: 'object',
  properties: {
    status: { type: 'array', items: status },
    assignee_agent_id: uuid,
    project_id: uuid,
    goal_id: uuid,
    parent_id: uuid,
    q: { type: 'string' },
    created_by: { type: 'string', enum: ['me'] },
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 500 },
  },
} as const

export const companyParams = idParams()
/** A task is named by UUID or key, so task_ref is any string (unknown ones are 404). */
export const taskParams = {
  type: 'object',
  properties: { company_id: uuid, task_ref: { type: 'string' } },
  required: ['company_id', 'task_ref'],
} as const
