import type { AppContext } from '../../server/context.ts'
import { type Tx, write } from '../../server/db/write.ts'
import { invalidState } from '../../server/errors.ts'
import type { Actor } from '../../server/actor.ts'
import { diff, recordAudit } from '../audit/record.ts'
import { isDormant } from '../../contract/agents.ts'
import { queueRun } from '../runs/queue.ts'
import type { Run } from '../runs/model.ts'
import { actingUserId } from '../tasks/acting.ts'
import { findTask } from '../tasks/find.ts'
import { TASK_FIELDS, type Task, taskLabel } from '../tasks/model.ts'
import { ROUTINE_COLUMNS, type Routine } from './model.ts'
import { getRoutine } from './service.ts'

export interface Triggered {
  routine: Routine
  task: Task
  run: Run
}

/**
 * Triggers a routine in the caller's transaction: a task for the routine's agent (the
 * routine's title, description and project; linked to the routine) and a `routine` run for it,
 * then `last_run_at`. A dormant agent is INVALID_STATE. Publishes `task.created`, `run.created`
 * and `routine.updated`. The person's trigger and the scheduler (with a system actor) share it.
 */
export async function triggerRoutineIn(tx: Tx, companyId: string, routineId: string, actor: Actor): Promise<Triggered> {
  const routine = await getRoutine(tx, companyId, routineId, true)
  const agent = (await tx.one<{ name: string; status: string }>(
    'SELECT name, status FROM agents WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2 FOR NO KEY UPDATE',
    [routine.agent_id, companyId],
  ))!
  if (isDormant(agent.status)) throw invalidState(`The routine's agent is ${agent.status}`)

  // The task number comes from the company row under its lock, as for every task.
  const created = (await tx.one<{ id: string }>(
    `WITH n AS (UPDATE companies SET last_task_number = last_task_number + 1 WHERE id = $1 RETURNING last_task_number)
     INSERT INTO tasks (company_id, number, title, description, assignee_agent_id, project_id, routine_id,
                        created_by_agent_id, created_by_user_id)
     SELECT $1, n.last_task_number, $2, $3, $4, $5, $6, $7, $8 FROM n
     RETURNING id`,
    [companyId, routine.title, routine.description, routine.agent_id, routine.project_id, routine.id,
      actor.type === 'agent' ? actor.agentId : null, actingUserId(actor)],
  ))!
  const task = await findTask(tx, companyId, created.id)
  await recordAudit(tx, {
    companyId, actor, verb: 'created', entityType: 'task', entityId: task.id, label: taskLabel(task),
    changes: diff({}, task, [...TASK_FIELDS]),
  })
  tx.publish(companyId, { type: 'task.created', id: task.id })

  const { run } = await queueRun(tx, {
    companyId, agentId: routine.agent_id, agentName: agent.name, taskId: task.id, routineId: routine.id, trigger: 'routine', actor,
  })

  const updated = (await tx.one<Routine>(
    `UPDATE routines SET last_run_at = now(), updated_at = now() WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2 RETURNING ${ROUTINE_COLUMNS}`,
    [routineId, companyId],
  ))!
  await recordAudit(tx, {
    companyId, actor, verb: 'triggered', entityType: 'routine', entityId: routineId, label: routine.title,
    changes: { last_run_at: [routine.last_run_at, updated.last_run_at] },
  })
  tx.publish(companyId, { type: 'routine.updated', id: routineId })
  return { routine: updated, task, run }
}

/** triggerRoutineIn in a transaction of its own; events are published after commit. */
export function triggerRoutine(ctx: Pick<AppContext, 'db' | 'bus'>, companyId: string, routineId: string, actor: Actor): Promise<Triggered> {
  return write(ctx, (tx) => triggerRoutineIn(tx, companyId, routineId, actor))
}
