import type { AppContext } from '../../server/context.ts'
import { type Tx, write } from '../../server/db/write.ts'
import { AppError, notFound } from '../../server/errors.ts'
import type { Actor } from '../../server/actor.ts'
import { publishRunUpdated, runEnded } from './finish.ts'
import { type Run, type RunStatus, runColumns, runningAgentIs } from './model.ts'

/**
 * Cancels a queued or running run (one guarded statement). A running run's runner learns it on
 * its next report (RUN_FINISHED) or heartbeat (RUN_LEASE_LOST). A finished run is RUN_FINISHED.
 */
export async function cancelRun(ctx: AppContext, companyId: string, runId: string, actor: Actor): Promise<Run> {
  const run = await write(ctx, async (tx) => {
    const cancelled = await tx.one<Run & { previous: RunStatus }>(
      `WITH old AS (SELECT id, status FROM runs WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2 FOR NO KEY UPDATE)
       UPDATE runs r SET status = 'cancelled', ended_at = now(), updated_at = now()
         FROM old
        WHERE r.id = old.id AND old.status IN ('queued', 'running')
        RETURNING ${runColumns('r')}, old.status AS previous`,
      [runId, companyId],
    )
    if (!cancelled) return null
    const { previous, ...row } = cancelled
    await runEnded(tx, row, previous, actor)
    publishRunUpdated(tx, row)
    return row
  })
  if (run) return run
  const exists = await ctx.db.one('SELECT 1 FROM runs WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2', [runId, companyId])
  if (!exists) throw notFound('Run')
  throw new AppError('RUN_FINISHED', 'The run has already finished')
}

/**
 * Cancels, in the caller's transaction, the runs of one agent or one task that are in one of
 * `statuses` (terminating an agent cancels its queued and running runs; deleting a task its
 * queued ones). Each cancellation is audited, moves the agent and publishes like a cancel
 * request; for an agent being terminated (`agentLeaving`) the agent is left to the termination
 * (runEnded). The runs are locked first, the order claims and reports use.
 */
export async function cancelRuns(
  tx: Tx,
  companyId: string,
  of: { agentId: string } | { taskId: string },
  statuses: ('queued' | 'running')[],
  actor: Actor,
  agentLeaving = false,
): Promise<void> {
  // An agent's queued runs and its running one, each through the index that holds only those
  // (an agent's history can be long); a task's runs through the task's index. The company is
  // given in a form no index takes (docs/ARCHITECTURE.md): given plainly, in a company the
  // statistics believe empty, terminating an agent read every run of the company.
  const candidates = 'agentId' in of
    ? `SELECT id FROM runs WHERE agent_id = $1 AND status = 'queued'
       UNION ALL SELECT id FROM runs WHERE ${runningAgentIs('runs', '$1')}`
    : 'SELECT id FROM runs WHERE task_id = $1'
  const rows = await tx.many<Run & { previous: RunStatus }>(
    `WITH old AS (SELECT id, status FROM runs
                   WHERE id IN (${candidates}) AND company_id IS NOT DISTINCT FROM $2 AND status = ANY($3::text[])
                   ORDER BY id FOR NO KEY UPDATE)
     UPDATE runs r SET status = 'cancelled', ended_at = now(), updated_at = now()
       FROM old
      WHERE r.id = old.id
      RETURNING ${runColumns('r')}, old.status AS previous`,
    ['agentId' in of ? of.agentId : of.taskId, companyId, statuses],
  )
  for (const { previous, ...run } of rows) {
    await runEnded(tx, run, previous, actor, agentLeaving)
    publishRunUpdated(tx, run)
  }
}
