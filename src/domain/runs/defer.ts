import type { ProviderLimit } from '../../contract/runs.ts'
import type { Tx } from '../../server/db/write.ts'
import type { Run } from './model.ts'
import { queueAgain } from './queue.ts'

// A run its provider refused for a quota or rate limit (API-DECISIONS.md "Provider limits, plans
// and fallback") is not the agent's failure and its work is not dropped: a replacement run -
// same agent, task, routine and trigger - is queued that no runner claims before the limit's
// reset (runs.not_before, claim_run()). Where the identical run is already queued (a wake, the
// next heartbeat, the routine firing again) that one is reused and waits too, so scheduled work
// does not pile up behind the limit.

/** How long a limit without a known reset is waited out. */
export const UNKNOWN_RESET_SECONDS = 60
/** No reset is believed further away than this: a wrong date must not shelve an agent for good. */
export const MAX_DEFER_DAYS = 7

const KIND_WORDS: Record<ProviderLimit['kind'], string> = {
  rate_limit: 'rate limit',
  usage_limit: 'usage limit',
}

/** The failed run's error when the runner gave none: provider, limit and reset in words. */
export function limitError(limit: ProviderLimit, resetAt: string): string {
  return `${limit.provider}: ${KIND_WORDS[limit.kind]} reached; the work is queued again for after ${resetAt}`
}

/** When the replacement may start: the reported reset, within [now, now + MAX_DEFER_DAYS]; a minute from now when unknown. */
export async function deferUntil(tx: Tx, limit: ProviderLimit): Promise<string> {
  const row = await tx.one<{ at: Date | string }>(
    `SELECT least(greatest(coalesce($1::timestamptz, now() + make_interval(secs => $2)), now()), now() + make_interval(days => $3)) AS at`,
    [limit.reset_at, UNKNOWN_RESET_SECONDS, MAX_DEFER_DAYS],
  )
  return new Date(row!.at).toISOString()
}

/**
 * Queues (or reuses) the replacement of `run`, which ended on `limit`, waiting until `until`.
 * Its first entry says why, followed by what the failed run was woken for.
 */
export async function queueReplacement(tx: Tx, run: Run, agentName: string, limit: ProviderLimit, until: string): Promise<Run> {
  const why = `Queued again after run ${run.id} met ${limit.provider}'s ${KIND_WORDS[limit.kind]}: waits until ${until}.`
  const { run: replacement } = await queueAgain(tx, run, agentName, why)
  // A reused queued run waits for the reset too; a later not_before already set stays.
  const deferred = await tx.one<{ not_before: string }>(
    `UPDATE runs SET not_before = greatest(coalesce(not_before, $2::timestamptz), $2::timestamptz), updated_at = now()
      WHERE id = $1 AND status = 'queued' RETURNING not_before`,
    [replacement.id, until],
  )
  return { ...replacement, not_before: deferred?.not_before ?? replacement.not_before }
}
