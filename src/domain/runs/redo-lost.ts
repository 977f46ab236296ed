import { isDormant } from '../../contract/agents.ts'
import type { Tx } from '../../server/db/write.ts'
import type { Run } from './model.ts'
import { queueAgain } from './queue.ts'

/**
 * After `run` was failed because its lease ran out (expire.ts), queues it again: same agent,
 * task, routine, trigger and purpose, its first entry saying why, followed by what the lost run was woken
 * for. A lease runs out when the runner stopped reporting (killed, its machine gone), which is
 * not the agent's doing, so the work is done again by whichever runner claims it next. Only once
 * (migration 221): a redo that is lost too stays failed. Not for an agent that may not run now
 * (paused, terminated, awaiting approval, its budget reached while the run ended) nor for a task
 * finished meanwhile (but a merge run's, whose task is done by its approval). Joins the identical queued run when there is one.
 */
export async function redoLostRun(tx: Tx, run: Run, agentName: string): Promise<void> {
  const state = await tx.one<{ redo_of: string | null; agent_status: string; task_status: string | null }>(
    `SELECT r.redo_of, a.status AS agent_status, t.status AS task_status
       FROM runs r JOIN agents a ON a.id = r.agent_id LEFT JOIN tasks t ON t.id = r.task_id
      WHERE r.id = $1`,
    [run.id],
  )
  if (!state || state.redo_of || isDormant(state.agent_status)) return
  // A merge run's task is done (approved) by design; any other run's finished task needs nothing.
  if (run.purpose !== 'merge' && (state.task_status === 'done' || state.task_status === 'cancelled')) return
  const why = `Queued again: run ${run.id} was lost when its runner stopped reporting (lease expired).`
  const { run: redo, created } = await queueAgain(tx, run, agentName, why)
  // A lost merge run (work/review.ts) is redone as a merge, not as the agent's work.
  if (created) await tx.query('UPDATE runs SET redo_of = $2, purpose = $3 WHERE id = $1', [redo.id, run.id, run.purpose])
}
