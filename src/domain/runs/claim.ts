import type { AppContext } from '../../server/context.ts'
import { type Tx, write } from '../../server/db/write.ts'
import { type Actor, recordAudit, systemActor } from '../audit/record.ts'
import { DORMANT_STATUSES } from '../agents/status.ts'
import { expireStaleIn } from './expire.ts'
import { publishRunUpdated, runStatusChanged } from './finish.ts'
import { type Run, runWithTranscriptColumns } from './model.ts'

export interface ClaimFilter {
  runnerId: string
  /** Only runs of these agents, when given. */
  agentIds?: string[] | null
  /** Only runs of agents with these adapters, when given. */
  adapters?: string[] | null
}

/** Attempts per claim request (SPEC.md "Business limits"). */
const CLAIM_ATTEMPTS = 5

/**
 * SQLSTATEs that mean "another claimer won this race, try again": the unique index allowing
 * one running run per agent (23505) and a deadlock with a concurrent write on the agent (40P01).
 */
const LOST_RACE = new Set(['23505', '40P01'])

/**
 * Claims the oldest eligible queued run of the company for a runner, or returns null. The run
 * comes with its transcript, for the run context.
 *
 * Each attempt is one transaction: stale runs are expired first, so their agents become
 * claimable again, then one guarded statement takes the candidate. The candidate run and its
 * agent are locked with SKIP LOCKED, so runners never wait for each other or for a write on the
 * agent (a wake, a pause) and never get the same run. Should two runners still pick different
 * runs of one agent, they collide on runs_one_running_per_agent; the loser rolls back and tries
 * again, and after CLAIM_ATTEMPTS lost races answers null (204).
 */
export async function claimRun(ctx: AppContext, companyId: string, filter: ClaimFilter, actor: Actor): Promise<Run | null> {
  for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
    try {
      return await write(ctx, async (tx) => {
        await expireStaleIn(tx, ctx.config.runLeaseSeconds, companyId)
        return claimOnce(tx, companyId, filter, actor)
      })
    } catch (err: any) {
      if (!LOST_RACE.has(err?.code)) throw err
    }
  }
  return null
}

async function claimOnce(tx: Tx, companyId: string, filter: ClaimFilter, actor: Actor) {
  // runs_claim (company_id, created_at) WHERE status = 'queued' gives the oldest first; the
  // NOT EXISTS probe uses runs_one_running_per_agent.
  const run = await tx.one<Run>(
    `WITH candidate AS (
       SELECT r.id FROM runs r JOIN agents a ON a.id = r.agent_id
        WHERE r.company_id = $1 AND r.status = 'queued'
          AND NOT (a.status = ANY($3::text[]))
          AND NOT EXISTS (SELECT 1 FROM runs x WHERE x.agent_id = r.agent_id AND x.status = 'running')
          AND ($4::uuid[] IS NULL OR r.agent_id = ANY($4::uuid[]))
          AND ($5::text[] IS NULL OR a.adapter = ANY($5::text[]))
        ORDER BY r.created_at, r.id
        LIMIT 1
        FOR NO KEY UPDATE OF r, a SKIP LOCKED
     )
     UPDATE runs SET status = 'running', runner_id = $2, started_at = now(), heartbeat_at = now(), updated_at = now()
       FROM candidate
      WHERE runs.id = candidate.id AND runs.status = 'queued'
      RETURNING ${runWithTranscriptColumns('runs')}`,
    [companyId, filter.runnerId, DORMANT_STATUSES, filter.agentIds ?? null, filter.adapters ?? null],
  )
  if (!run) return null
  await runStatusChanged(tx, run, 'queued', actor)
  if (run.task_id) await startTask(tx, companyId, run.task_id, run.agent_id)
  publishRunUpdated(tx, run)
  return run
}

/**
 * A claimed run's `backlog` or `todo` task moves to `in_progress` (API-DECISIONS.md), stamping
 * started_at the first time, with the system as the actor on behalf of the run's agent.
 */
async function startTask(tx: Tx, companyId: string, taskId: string, agentId: string) {
  const moved = await tx.one<{ title: string; key: string; old_status: string; started_at_changed: boolean; started_at: string; agent_name: string | null }>(
    `WITH old AS (SELECT id, status, started_at FROM tasks WHERE id = $1 AND company_id = $2 FOR NO KEY UPDATE)
     UPDATE tasks t SET status = 'in_progress', started_at = coalesce(t.started_at, now()), updated_at = now()
       FROM old, companies c
      WHERE t.id = old.id AND c.id = t.company_id AND old.status IN ('backlog', 'todo')
      RETURNING t.title, c.task_prefix || '-' || t.number AS key, old.status AS old_status,
                old.started_at IS NULL AS started_at_changed, t.started_at,
                (SELECT name FROM agents WHERE id = $3) AS agent_name`,
    [taskId, companyId, agentId],
  )
  if (!moved) return
  await recordAudit(tx, {
    companyId,
    actor: systemActor(moved.agent_name),
    verb: 'moved',
    entityType: 'task',
    entityId: taskId,
    label: `${moved.key} ${moved.title}`,
    changes: {
      status: [moved.old_status, 'in_progress'],
      ...(moved.started_at_changed ? { started_at: [null, moved.started_at] } : {}),
    },
  })
  tx.publish(companyId, { type: 'task.updated', id: taskId })
}
