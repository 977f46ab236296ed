import type { Tx } from '../../server/db/write.ts'
import { type Actor, diff, recordAudit } from '../audit/record.ts'
import { findInCompany } from '../companies/references.ts'
import { actingUserId } from './acting.ts'
import { type Assignee, findAssignee, queueAssignment } from './assignment.ts'
import { TASK_FIELDS, type Task, taskLabel } from './model.ts'

export interface TaskInput {
  title: string
  description?: string | null
  status?: string
  priority?: string
  assignee_agent_id?: string | null
  project_id?: string | null
  goal_id?: string | null
  parent_id?: string | null
  due_date?: string | null
  sort_order?: number
  run_id?: string | null
}

/** Checks that every entity a task points at is in the company (404 naming it otherwise). */
export async function checkTaskLinks(tx: Tx, companyId: string, links: Pick<TaskInput, 'project_id' | 'goal_id' | 'parent_id'>) {
  if (links.project_id) await findInCompany(tx, 'projects', companyId, links.project_id, 'Project')
  if (links.goal_id) await findInCompany(tx, 'goals', companyId, links.goal_id, 'Goal')
  if (links.parent_id) await findInCompany(tx, 'tasks', companyId, links.parent_id, 'Parent task')
}

/**
 * Creates a task. Everything is checked before the number is taken, and the number comes from
 * the company row (`last_task_number + 1` under its row lock), so numbers are consecutive and
 * a failed create - rolled back with the rest - consumes none. Publishes `task.created` and
 * queues an assignment run when the rules allow.
 */
export async function createTask(tx: Tx, companyId: string, actor: Actor, input: TaskInput): Promise<Task> {
  const assignee: Assignee | null = input.assignee_agent_id ? await findAssignee(tx, companyId, input.assignee_agent_id) : null
  await checkTaskLinks(tx, companyId, input)

  // One statement takes the next number under the company row's lock, inserts the task and
  // returns it as the API shows it (the key needs the company's prefix).
  const status = input.status ?? 'todo'
  const task = (await tx.one<Task>(
    `WITH numbered AS (
       UPDATE companies SET last_task_number = last_task_number + 1 WHERE id = $1
       RETURNING last_task_number AS number, task_prefix
     ), t AS (
       INSERT INTO tasks (company_id, number, title, description, status, priority, assignee_agent_id, project_id, goal_id,
                          parent_id, due_date, sort_order, created_by_agent_id, created_by_user_id, started_at, completed_at)
       SELECT $1, numbered.number, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,
              CASE WHEN $4 = 'in_progress' THEN now() END,
              CASE WHEN $4 = 'done' THEN now() END
         FROM numbered
       RETURNING *
     )
     SELECT t.id, numbered.task_prefix || '-' || t.number AS key, t.number, t.title, t.description, t.status, t.priority,
            t.assignee_agent_id, t.project_id, t.goal_id, t.parent_id, t.due_date, t.sort_order,
            t.created_by_agent_id, t.created_by_user_id, t.started_at, t.completed_at, t.created_at, t.updated_at
       FROM t, numbered`,
    [
      companyId, input.title, input.description ?? null, status, input.priority ?? 'medium', assignee?.id ?? null,
      input.project_id ?? null, input.goal_id ?? null, input.parent_id ?? null, input.due_date ?? null, input.sort_order ?? 0,
      actor.type === 'agent' ? actor.agentId : null, actingUserId(actor),
    ],
  ))!
  await recordAudit(tx, {
    companyId,
    actor,
    verb: 'created',
    entityType: 'task',
    entityId: task.id,
    label: taskLabel(task),
    changes: diff({}, task, [...TASK_FIELDS]),
  })
  tx.publish(companyId, { type: 'task.created', id: task.id })
  if (assignee) await queueAssignment(tx, companyId, task, assignee, actor)
  return task
}
