import type { Tx } from '../../server/db/write.ts'
import { notFound } from '../../server/errors.ts'
import { DORMANT_STATUSES } from '../agents/status.ts'
import { type Actor, diff, recordAudit } from '../audit/record.ts'
import { findInCompany } from '../companies/references.ts'
import { type Run, runColumns } from '../runs/model.ts'
import { runQueued } from '../runs/queue.ts'
import { actingUserId } from './acting.ts'
import { NO_RUN_STATUSES, TASK_FIELDS, type Task, taskLabel } from './model.ts'

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
  await checkTaskLinks(tx, companyId, input)

  // One statement checks the assignee, takes the next number under the company row's lock,
  // inserts the task, queues its assignment run when the assignee is available and the status
  // is open work (queueAssignment's rule), and returns the task as the API shows it. A task
  // just made can have no identical queued run, so the run needs none of queueRun's reuse.
  const status = input.status ?? 'todo'
  const row = await tx.one<Task & { assignee_name: string | null; run: Run | null }>(
    `WITH assignee AS (
       SELECT id, name, status FROM agents WHERE id = $6 AND company_id = $1
     ), numbered AS (
       UPDATE companies SET last_task_number = last_task_number + 1
        WHERE id = $1 AND ($6::uuid IS NULL OR EXISTS (SELECT 1 FROM assignee))
       RETURNING last_task_number AS number, task_prefix
     ), t AS (
       INSERT INTO tasks (company_id, number, title, description, status, priority, assignee_agent_id, project_id, goal_id,
                          parent_id, due_date, sort_order, created_by_agent_id, created_by_user_id, started_at, completed_at)
       SELECT $1, numbered.number, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,
              CASE WHEN $4 = 'in_progress' THEN now() END,
              CASE WHEN $4 = 'done' THEN now() END
         FROM numbered
       RETURNING *
     ), run AS (
       INSERT INTO runs (company_id, agent_id, task_id, trigger)
       SELECT $1, assignee.id, t.id, 'assignment' FROM t, assignee
        WHERE NOT (assignee.status = ANY($14::text[])) AND NOT (t.status = ANY($15::text[]))
       RETURNING ${runColumns()}
     )
     SELECT t.id, numbered.task_prefix || '-' || t.number AS key, t.number, t.title, t.description, t.status, t.priority,
            t.assignee_agent_id, t.project_id, t.goal_id, t.parent_id, t.due_date, t.sort_order,
            t.created_by_agent_id, t.created_by_user_id, t.started_at, t.completed_at, t.created_at, t.updated_at,
            (SELECT name FROM assignee) AS assignee_name, (SELECT to_jsonb(run) FROM run) AS run
       FROM t, numbered`,
    [
      companyId, input.title, input.description ?? null, status, input.priority ?? 'medium', input.assignee_agent_id ?? null,
      input.project_id ?? null, input.goal_id ?? null, input.parent_id ?? null, input.due_date ?? null, input.sort_order ?? 0,
      actor.type === 'agent' ? actor.agentId : null, actingUserId(actor), DORMANT_STATUSES, NO_RUN_STATUSES,
    ],
  )
  // No row: the company row was not numbered because the assignee is not in the company.
  if (!row) throw notFound('Assignee')
  const { assignee_name: assigneeName, run, ...task } = row
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
  if (run) await runQueued(tx, run, assigneeName!, actor)
  return task
}
