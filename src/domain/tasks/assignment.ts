import type { Tx } from '../../server/db/write.ts'
import type { Actor } from '../../server/actor.ts'
import { isDormant } from '../../contract/agents.ts'
import { findInCompany } from '../companies/references.ts'
import { queueRun } from '../runs/queue.ts'
import { NO_RUN_STATUSES, type Task } from './model.ts'

export interface Assignee {
  id: string
  name: string
  status: string
}

/** The assignee named by a task write, in this company, else `404 Assignee not found`. */
export function findAssignee(tx: Tx, companyId: string, agentId: string): Promise<Assignee> {
  return findInCompany<Assignee>(tx, 'agents', companyId, agentId, 'Assignee', 'id, name, status')
}

/**
 * Queues the `assignment` run for a task just created or reassigned, when its assignee is
 * available (not dormant) and its status is open work (not backlog, done or cancelled).
 * queueRun reuses an identical queued run and publishes `run.created` either way.
 */
export async function queueAssignment(tx: Tx, companyId: string, task: Task, assignee: Assignee, actor: Actor): Promise<void> {
  if (isDormant(assignee.status) || NO_RUN_STATUSES.includes(task.status)) return
  await queueRun(tx, {
    companyId,
    agentId: assignee.id,
    agentName: assignee.name,
    taskId: task.id,
    trigger: 'assignment',
    actor,
  })
}
