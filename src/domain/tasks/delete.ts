import type { Tx } from '../../server/db/write.ts'
import { type Actor, recordAudit } from '../audit/record.ts'
import { findTask } from './find.ts'
import { taskLabel } from './model.ts'

/**
 * Deletes a task: its comments go with it, its subtasks are detached, its runs stay with
 * task_id null. Queued runs for it are cancelled first - there is nothing left for them to
 * do, and two detached queued runs of one agent would collide as "identical" runs.
 */
export async function deleteTask(tx: Tx, companyId: string, ref: string, actor: Actor): Promise<void> {
  const task = await findTask(tx, companyId, ref, true)
  const cancelled = await tx.many<{ id: string; agent_id: string; name: string; trigger: string }>(
    `UPDATE runs r SET status = 'cancelled', ended_at = now(), updated_at = now()
       FROM agents a
      WHERE r.task_id = $1 AND r.company_id = $2 AND r.status = 'queued' AND a.id = r.agent_id
      RETURNING r.id, r.agent_id, a.name, r.trigger`,
    [task.id, companyId],
  )
  for (const run of cancelled) {
    await recordAudit(tx, {
      companyId,
      actor,
      verb: 'cancelled',
      entityType: 'run',
      entityId: run.id,
      label: `${run.name} (${run.trigger})`,
      changes: { status: ['queued', 'cancelled'] },
    })
    tx.publish(companyId, { type: 'run.updated', id: run.id, agent_id: run.agent_id, status: 'cancelled' })
  }
  await tx.query('DELETE FROM tasks WHERE id = $1 AND company_id = $2', [task.id, companyId])
  await recordAudit(tx, { companyId, actor, verb: 'deleted', entityType: 'task', entityId: task.id, label: taskLabel(task) })
  tx.publish(companyId, { type: 'task.deleted', id: task.id })
}
