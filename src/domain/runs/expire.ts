import type { AppContext } from '../../server/context.ts'
import { type Tx, write } from '../../server/db/write.ts'
import { leaseExpiries } from '../../server/metrics.ts'
import { publishRunUpdated, runEnded } from './finish.ts'
import { type Run, runColumns } from './model.ts'
import { redoLostRun } from './redo-lost.ts'

/** The error a run is failed with when its runner stopped heartbeating and reporting. */
export const LEASE_EXPIRED_ERROR = 'The runner stopped reporting (lease expired)'

/**
 * Fails the running runs whose lease ran out: no heartbeat or report (or start) within
 * RUN_LEASE_SECONDS, judged by the database clock. Each one is audited as `failed` by the
 * system on behalf of its agent, moves the agent to `error` when nothing else of it runs, has
 * its agent's budget checked, and is queued again once (redo-lost.ts). `companyId` null sweeps every company (the scheduler); `runId`
 * limits the sweep to one run (a heartbeat or report checking its own lease).
 * Returns the ids of the runs it failed. Runs in the caller's transaction.
 */
export async function expireStaleIn(tx: Tx, leaseSeconds: number, companyId: string | null, runId: string | null = null): Promise<string[]> {
  // The partial index runs_running holds only running runs, so this never reads history. Each
  // scope is a statement of its own, not `$1 IS NULL OR company_id = $1`: the plan then reads one
  // company's part of the index (or one run) whatever it was made for (statistics taken while few
  // runs were running read the whole index; so may a prepared statement's generic plan).
  const params: unknown[] = [LEASE_EXPIRED_ERROR, leaseSeconds]
  const scope = [
    ...(companyId ? [`company_id = $${params.push(companyId)}`] : []),
    ...(runId ? [`id = $${params.push(runId)}`] : []),
  ]
  const expired = await tx.many<Run>(
    `UPDATE runs SET status = 'failed', error = $1, ended_at = now(), updated_at = now()
      WHERE status = 'running' ${scope.map((condition) => `AND ${condition}`).join(' ')}
        AND coalesce(heartbeat_at, started_at) < now() - make_interval(secs => $2)
      RETURNING ${runColumns()}`,
    params,
  )
  for (const run of expired) {
    const agentName = await runEnded(tx, run, 'running', null)
    await redoLostRun(tx, run, agentName)
    publishRunUpdated(tx, run)
  }
  return expired.map((run) => run.id)
}

/** expireStaleIn in a transaction of its own; events are published after commit. */
export async function expireStaleRuns(ctx: Pick<AppContext, 'db' | 'bus' | 'config'>, companyId: string | null, runId: string | null = null): Promise<string[]> {
  const expired = await write(ctx, (tx) => expireStaleIn(tx, ctx.config.runLeaseSeconds, companyId, runId))
  leaseExpiries.inc(expired.length)
  return expired
}
