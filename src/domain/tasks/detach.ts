import type { Tx } from '../../server/db/write.ts'
import type { Actor } from '../../server/actor.ts'
import { recordAudit } from '../audit/record.ts'
import { taskLabel } from './model.ts'

/**
 * Unlinks the company's tasks whose `column` names `from`, a parent task or a goal about to be
 * deleted (the foreign keys would null the link silently): each is an audited change and
 * publishes `task.updated`, so open screens drop the link too.
 */
export async function detachTasks(tx: Tx, companyId: string, column: 'parent_id' | 'goal_id', from: string, actor: Actor): Promise<void> {
  const tasks = await tx.many<{ id: string; key: string; title: string }>(
    `UPDATE tasks t SET ${column} = NULL, updated_at = now() FROM companies c
      WHERE t.${column} = $1 AND t.company_id IS NOT DISTINCT FROM $2 AND c.id = t.company_id
      RETURNING t.id, c.task_prefix || '-' || t.number AS key, t.title`,
    [from, companyId],
  )
  for (const task of tasks) {
    await recordAudit(tx, { companyId, actor, verb: 'updated', entityType: 'task', entityId: task.id, label: taskLabel(task), changes: { [column]: [from, null] } })
    tx.publish(companyId, { type: 'task.updated', id: task.id })
  }
}
