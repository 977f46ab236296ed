import type { Tx } from '../../server/db/write.ts'
import { AppError } from '../../server/errors.ts'
import type { Actor } from '../../server/actor.ts'
import { diff, recordAudit } from '../audit/record.ts'
import { chainReaches } from '../companies/references.ts'
import { type Assignee, findAssignee, queueAssignment } from './assignment.ts'
import { checkTaskLinks, type TaskInput } from './create.ts'
import { wakeOnSubtasksClosed } from './delegation.ts'
import { findTask } from './find.ts'
import { requirePassedChecks } from './require-checks.ts'
import { TASK_FIELDS, type Task, type TaskField, taskLabel } from './model.ts'

export type TaskPatch = Partial<Omit<TaskInput, 'run_id'>>

/**
 * Changes the fields present in the patch. A parent equal to the task itself is ignored; a
 * parent among its own subtasks (any depth) is TASK_CYCLE. Status stamps: started_at the first
 * time the task is in progress, completed_at on reaching done and cleared on leaving it.
 * Nothing is written, audited or published when nothing changed. Reassigning to an available
 * agent queues an assignment run under the creation rules. `said` goes into the one
 * `task.updated` published (a review's decision: work/review.ts), not in an event of its own.
 */
export async function updateTask(tx: Tx, companyId: string, ref: string, actor: Actor, patch: TaskPatch, said: Record<string, string> = {}): Promise<Task> {
  const before = await findTask(tx, companyId, ref, true)
  const wanted: TaskPatch = { ...patch }
  if (wanted.parent_id === before.id) delete wanted.parent_id
  if (typeof wanted.due_date === 'string') {
    // Spell the date the way the database returns it, so an unchanged date compares equal.
    wanted.due_date = (await tx.one<{ v: string }>('SELECT $1::timestamptz AS v', [wanted.due_date]))!.v
  }

  const after: Record<string, unknown> = { ...before }
  for (const field of TASK_FIELDS) if (wanted[field] !== undefined) after[field] = wanted[field]
  const changes = diff(before, after, [...TASK_FIELDS])
  if (Object.keys(changes).length === 0) return before
  const changed = (field: TaskField) => field in changes

  let assignee: Assignee | null = null
  if (changed('assignee_agent_id') && after.assignee_agent_id) {
    assignee = await findAssignee(tx, companyId, String(after.assignee_agent_id))
  }
  await checkTaskLinks(tx, companyId, {
    project_id: changed('project_id') ? (after.project_id as string | null) : null,
    goal_id: changed('goal_id') ? (after.goal_id as string | null) : null,
    parent_id: changed('parent_id') ? (after.parent_id as string | null) : null,
  })
  if (changed('status') && after.status === 'done') await requirePassedChecks(tx, companyId, before, actor)
  if (changed('parent_id') && after.parent_id && (await chainReaches(tx, 'tasks', companyId, String(after.parent_id), before.id))) {
    throw new AppError('TASK_CYCLE', 'A task cannot be a subtask of one of its own subtasks')
  }

  await tx.query(
    `UPDATE tasks
        SET title = $3, description = $4, priority = $6, assignee_agent_id = $7, project_id = $8, goal_id = $9,
            parent_id = $10, due_date = $11, sort_order = $12, updated_at = now(),
            started_at = CASE WHEN $5 = 'in_progress' THEN coalesce(started_at, now()) ELSE started_at END,
            completed_at = CASE WHEN $5 <> 'done' THEN NULL WHEN status = 'done' THEN completed_at ELSE now() END,
            blocked_by_run_id = CASE WHEN $5 <> 'blocked' THEN NULL WHEN status = 'blocked' THEN blocked_by_run_id ELSE $13::uuid END,
            status = $5
      WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2`,
    [
      before.id, companyId, after.title, after.description, after.status, after.priority, after.assignee_agent_id,
      after.project_id, after.goal_id, after.parent_id, after.due_date, after.sort_order,
      actor.type === 'agent' ? actor.runId : null,
    ],
  )
  const task = await findTask(tx, companyId, before.id)
  await recordAudit(tx, {
    companyId,
    actor,
    verb: changed('status') ? 'moved' : 'updated',
    entityType: 'task',
    entityId: task.id,
    label: taskLabel(task),
    changes,
  })
  tx.publish(companyId, { ...said, type: 'task.updated', id: task.id })
  if (assignee) await queueAssignment(tx, companyId, task, assignee, actor)
  if (changed('status')) await wakeOnSubtasksClosed(tx, companyId, task, actor)
  return task
}
