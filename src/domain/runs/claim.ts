import type { AppContext } from '../../server/context.ts'
import { write, writeHot } from '../../server/db/write.ts'
import type { Actor } from '../../server/actor.ts'
import { actorColumns } from '../audit/record.ts'
import { DORMANT_STATUSES } from '../../contract/agents.ts'
import { tripRunLimit } from './breaker.ts'
import { expireStaleRuns } from './expire.ts'
import { runUpdatedEvent } from './finish.ts'
import { type Run, runColumns } from './model.ts'

export interface ClaimFilter {
  runnerId: string
  /** Only runs of these agents, when given. */
  agentIds?: string[] | null
  /** Only runs of agents with these adapters, when given. */
  adapters?: string[] | null
}

/** Attempts per claim request (SPEC.md "Business limits"). */
const CLAIM_ATTEMPTS = 5
/** Attempts in all, counting those that met stale runs. */
const MAX_TRIES = 20

/**
 * True for the errors that mean "another claimer won this race, try again": the unique index
 * allowing one running run per agent, and a deadlock with a concurrent write on the agent.
 */
function lostRace(err: { code?: string; constraint?: string }): boolean {
  return (err?.code === '23505' && err.constraint === 'runs_one_running_per_agent') || err?.code === '40P01'
}

/** The claimed run's fields as the answer gives them: claim_run returns more (its agent's name, the task it moved). */
const RUN_FIELDS = [...runColumns().split(', '), 'transcript', 'transcript_trimmed_at'] as (keyof Run)[]

/**
 * Claims the oldest eligible queued run of the company for a runner, or returns null. The run
 * comes with its transcript, for the run context.
 *
 * Each attempt is one statement, claim_run() (db/functions/claim_run.sql), committed as it completes. The
 * candidate run and its agent are locked with SKIP LOCKED, so runners never wait for each other
 * or for a write on the agent (a wake, a pause) and never get the same run. Should two runners
 * still pick different runs of one agent, they collide on runs_one_running_per_agent; the loser
 * tries again, and after CLAIM_ATTEMPTS lost races answers null (204). Stale runs are expired
 * first: claim_run reports them instead of claiming, and they are failed before the next try.
 */
export async function claimRun(ctx: AppContext, companyId: string, filter: ClaimFilter, actor: Actor): Promise<Run | null> {
  const claimer = actorColumns(actor)
  const params = [
    companyId, filter.runnerId, DORMANT_STATUSES, filter.agentIds ?? null, filter.adapters ?? null, ctx.config.runLeaseSeconds,
    claimer.actor_type, claimer.actor_name, claimer.actor_user_id, claimer.actor_agent_id, claimer.run_id,
  ]
  let lostRaces = 0
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    let claimed: Record<string, any> | null
    try {
      claimed = await writeHot(ctx, companyId, async (tx) => {
        const row = await tx.one<{ claimed: Record<string, any> | null }>(
          'SELECT claim_run($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) AS claimed',
          params,
        )
        const got = row!.claimed
        if (got && !got.stale && !got.tripped) {
          // A run starting publishes agent.updated even when the agent was already running.
          tx.publish(companyId, { type: 'agent.updated', id: got.agent_id })
          if (got.started_task_id) tx.publish(companyId, { type: 'task.updated', id: got.started_task_id })
          tx.publish(companyId, runUpdatedEvent(got as Run))
        }
        return got
      })
    } catch (err: any) {
      if (!lostRace(err)) throw err
      if (++lostRaces === CLAIM_ATTEMPTS) return null
      continue
    }
    if (!claimed) return null
    if (claimed.stale) {
      await expireStaleRuns(ctx, companyId)
      continue
    }
    if (claimed.tripped) {
      // The runaway breaker: pause them (each re-checked under its lock), then claim again.
      for (const agentId of claimed.tripped as string[]) await write(ctx, (tx) => tripRunLimit(tx, companyId, agentId))
      continue
    }
    return Object.fromEntries(RUN_FIELDS.map((field) => [field, claimed[field]])) as unknown as Run
  }
  throw new Error('could not claim a run: every try met stale runs or agents the runaway breaker paused')
}
