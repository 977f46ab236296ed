import type { AppContext } from '../../server/context.ts'
import { type Tx, write } from '../../server/db/write.ts'
import { invalidState, notFound } from '../../server/errors.ts'
import type { Actor } from '../../server/actor.ts'
import { isDormant } from '../../contract/agents.ts'
import { type Run, runColumns, transcriptColumns } from './model.ts'
import { queueRun, quotedEntryText } from './queue.ts'

export interface WakeInput {
  taskId?: string | null
  /** First transcript entry; defaults to who woke the agent. */
  reason?: string | null
  /** The runner starts a new CLI session rather than resuming the agent's last one on the task. */
  freshSession?: boolean
}

/**
 * Wakes an agent: queues a `manual` run (optionally for a task of the company) whose first
 * transcript entry is the reason, or reuses the identical queued run. A dormant agent is
 * INVALID_STATE. Used by POST /agents/{id}/wake with the person as actor, and by the scheduler
 * with a system actor. Runs in the caller's transaction.
 */
export async function wakeAgentIn(tx: Tx, companyId: string, agentId: string, input: WakeInput, actor: Actor): Promise<Run> {
  // Locked so that a concurrent pause or terminate cannot slip between the check and the queue.
  const agent = await tx.one<{ name: string; status: string }>(
    'SELECT name, status FROM agents WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2 FOR NO KEY UPDATE',
    [agentId, companyId],
  )
  if (!agent) throw notFound('Agent')
  if (isDormant(agent.status)) throw invalidState(`Agent is ${agent.status} and cannot be woken`)
  if (input.taskId) {
    const task = await tx.one('SELECT 1 FROM tasks WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2', [input.taskId, companyId])
    if (!task) throw notFound('Task')
  }
  const { run } = await queueRun(tx, {
    companyId,
    agentId,
    agentName: agent.name,
    taskId: input.taskId ?? null,
    trigger: 'manual',
    // An agent's words are its own, quoted after ours; a person's reason is the reason.
    ...(actor.type === 'agent'
      ? { reason: `Woken by ${actor.name}`, quoted: input.reason?.trim() ? quotedEntryText(actor.name, input.reason) : null }
      : { reason: input.reason?.trim() ? input.reason : `Woken by ${actor.name}` }),
    actor,
  })
  if (input.freshSession) await tx.query('UPDATE runs SET fresh_session = true WHERE id = $1', [run.id])
  return (await tx.one<Run>(`SELECT ${runColumns('r')}, ${transcriptColumns('r')} FROM runs r WHERE r.id = $1`, [run.id]))!
}

/** wakeAgentIn in a transaction of its own; events are published after commit. */
export function wakeAgent(ctx: Pick<AppContext, 'db' | 'bus'>, companyId: string, agentId: string, input: WakeInput, actor: Actor): Promise<Run> {
  return write(ctx, (tx) => wakeAgentIn(tx, companyId, agentId, input, actor))
}
