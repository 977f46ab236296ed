import type { Tx } from '../../server/db/write.ts'
import type { Actor } from '../../server/actor.ts'
import { recordAudit } from '../audit/record.ts'
import { cancelRuns } from '../runs/cancel.ts'
import { detachTasks } from './detach.ts'
import { findTask } from './find.ts'
import { taskLabel } from './model.ts'

/**
 * Deletes a task: its comments go with it, its subtasks are detached (each an audited change
 * with `task.updated`), its runs stay with task_id null. Queued runs for it are cancelled
 * first - there is nothing left for them to do, and two detached queued runs of one agent
 * would collide as "identical" runs.
 */
export async function deleteTask(tx: Tx, companyId: string, ref: string, actor: Actor): Promise<void> {
  const task = await findTask(tx, companyId, ref, true)
  await cancelRuns(tx, companyId, { taskId: task.id }, ['queued'], actor)
  await detachTasks(tx, companyId, 'parent_id', task.id, actor)
  await tx.query('DELETE FROM tasks WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2', [task.id, companyId])
  await recordAudit(tx, { companyId, actor, verb: 'deleted', entityType: 'task', entityId: task.id, label: taskLabel(task) })
  tx.publish(companyId, { type: 'task.deleted', id: task.id })
}
