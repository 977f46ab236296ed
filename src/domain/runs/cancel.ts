import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { AppError, notFound } from '../../server/errors.ts'
import type { Actor } from '../audit/record.ts'
import { publishRunUpdated, runStatusChanged } from './finish.ts'
import { type Run, type RunStatus, runColumns } from './model.ts'

/**
 * Cancels a queued or running run (one guarded statement). A running run's runner learns it on
 * its next report (RUN_FINISHED) or heartbeat (RUN_LEASE_LOST). A finished run is RUN_FINISHED.
 */
export async function cancelRun(ctx: AppContext, companyId: string, runId: string, actor: Actor): Promise<Run> {
  const run = await write(ctx, async (tx) => {
    const cancelled = await tx.one<Run & { previous: RunStatus }>(
      `WITH old AS (SELECT id, status FROM runs WHERE id = $1 AND company_id = $2 FOR NO KEY UPDATE)
       UPDATE runs r SET status = 'cancelled', ended_at = now(), updated_at = now()
         FROM old
        WHERE r.id = old.id AND old.status IN ('queued', 'running')
        RETURNING ${runColumns('r')}, old.status AS previous`,
      [runId, companyId],
    )
    if (!cancelled) return null
    const { previous, ...row } = cancelled
    await runStatusChanged(tx, row, previous, actor)
    publishRunUpdated(tx, row)
    return row
  })
  if (run) return run
  const exists = await ctx.db.one('SELECT 1 FROM runs WHERE id = $1 AND company_id = $2', [runId, companyId])
  if (!exists) throw notFound('Run')
  throw new AppError('RUN_FINISHED', 'The run has already finished')
}
