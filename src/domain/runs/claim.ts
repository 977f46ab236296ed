import type { AppContext } from '../../server/context.ts'
import { type Tx, write } from '../../server/db/write.ts'
import { type Actor, actorColumns, auditInstantSql, isAuditInstantTaken } from '../audit/record.ts'
import { DORMANT_STATUSES } from '../agents/status.ts'
import { expireStaleIn } from './expire.ts'
import { publishRunUpdated } from './finish.ts'
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
/** Attempts in all, counting those that only lost their audit instant. */
const MAX_TRIES = 20

/**
 * Planner settings for the claim's transaction. PostgreSQL plans a prepared statement again on
 * every execution while its generic plan looks dearer than a custom one, and for the claim it
 * always does: not knowing which company, the generic plan expects a few queued runs and would
 * read and sort them all, where the right plan walks runs_claim in order and stops at the first
 * claimable run. Planning the claim each time cost 1.1 ms, more than running it. With sorts and
 * bitmap scans priced out, the generic plan is the ordered walk, so it is made once per
 * connection and reused. set_config(..., true) lasts until the transaction ends.
 */
const CLAIM_PLANNING = `SELECT set_config('plan_cache_mode', 'force_generic_plan', true),
  set_config('enable_sort', 'off', true), set_config('enable_bitmapscan', 'off', true)`

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
  let lostRaces = 0
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    try {
      return await write(ctx, async (tx) => {
        await expireStaleIn(tx, ctx.config.runLeaseSeconds, companyId)
        await tx.query(CLAIM_PLANNING)
        return claimOnce(tx, companyId, filter, actor)
      })
    } catch (err: any) {
      // Its audit instant was taken by a concurrent write of the company: not a lost race.
      if (isAuditInstantTaken(err)) continue
      if (!LOST_RACE.has(err?.code)) throw err
      if (++lostRaces === CLAIM_ATTEMPTS) return null
    }
  }
  throw new Error('could not claim a run: audit instants kept being taken')
}

/**
 * One attempt, as one statement: take the candidate, start it, move its agent to running
 * (agent-status.ts) and its `backlog` or `todo` task to `in_progress` (API-DECISIONS.md),
 * stamping started_at the first time, and write their audit events: run `started` by the
 * claimer, task `moved` by the system on behalf of the agent, 1 µs later. An audit instant
 * taken by a concurrent write fails the statement (unique index), and claimRun tries again.
 */
async function claimOnce(tx: Tx, companyId: string, filter: ClaimFilter, actor: Actor): Promise<Run | null> {
  const claimer = actorColumns(actor)
  // runs_claim (company_id, created_at, id) WHERE status = 'queued' gives the oldest first; the
  // NOT EXISTS probe uses runs_one_running_per_agent.
  const row = await tx.one<Run & { agent_name: string; started_task_id: string | null }>(
    `WITH candidate AS (
       SELECT r.id, a.name AS agent_name FROM runs r JOIN agents a ON a.id = r.agent_id
        WHERE r.company_id = $1 AND r.status = 'queued'
          AND NOT (a.status = ANY($3::text[]))
          AND NOT EXISTS (SELECT 1 FROM runs x WHERE x.agent_id = r.agent_id AND x.status = 'running')
          AND ($4::uuid[] IS NULL OR r.agent_id = ANY($4::uuid[]))
          AND ($5::text[] IS NULL OR a.adapter = ANY($5::text[]))
        ORDER BY r.created_at, r.id
        LIMIT 1
        FOR NO KEY UPDATE OF r, a SKIP LOCKED
     ), run AS (
       UPDATE runs SET status = 'running', runner_id = $2, started_at = now(), heartbeat_at = now(), updated_at = now()
         FROM candidate
        WHERE runs.id = candidate.id AND runs.status = 'queued'
        RETURNING ${runWithTranscriptColumns('runs')}, candidate.agent_name
     ), agent AS (
       UPDATE agents SET status = 'running', last_activity = now(), updated_at = now()
        WHERE id = (SELECT agent_id FROM run) AND company_id = $1 AND status IN ('idle', 'error')
     ), old_task AS (
       SELECT id, status, started_at FROM tasks
        WHERE id = (SELECT task_id FROM run) AND company_id = $1 AND status IN ('backlog', 'todo')
        FOR NO KEY UPDATE
     ), task AS (
       UPDATE tasks t SET status = 'in_progress', started_at = coalesce(t.started_at, now()), updated_at = now()
         FROM old_task o, companies c
        WHERE t.id = o.id AND c.id = t.company_id
        RETURNING t.id, t.title, c.task_prefix || '-' || t.number AS key, o.status AS old_status,
                  o.started_at IS NULL AS started_at_changed, t.started_at
     ), stamp AS (
       SELECT ${auditInstantSql('$1')} AS at
     ), audit AS (
       INSERT INTO audit_events (company_id, actor_type, actor_name, actor_user_id, actor_agent_id, run_id,
                                 verb, entity_type, entity_id, label, changes, created_at)
       SELECT $1, $6, $7, $8::uuid, $9::uuid, $10::uuid, 'started', 'run', run.id, run.agent_name || ' (' || run.trigger || ')',
              '{"status": ["queued", "running"]}'::jsonb, stamp.at
         FROM run, stamp
       UNION ALL
       SELECT $1, 'system', run.agent_name, NULL, NULL, NULL, 'moved', 'task', task.id, task.key || ' ' || task.title,
              jsonb_build_object('status', jsonb_build_array(task.old_status, 'in_progress'))
                || CASE WHEN task.started_at_changed THEN jsonb_build_object('started_at', jsonb_build_array(NULL, task.started_at))
                        ELSE '{}'::jsonb END,
              stamp.at + interval '1 microsecond'
         FROM run, task, stamp
     )
     SELECT run.*, (SELECT id FROM task) AS started_task_id FROM run`,
    [
      companyId, filter.runnerId, DORMANT_STATUSES, filter.agentIds ?? null, filter.adapters ?? null,
      claimer.actor_type, claimer.actor_name, claimer.actor_user_id, claimer.actor_agent_id, claimer.run_id,
    ],
  )
  if (!row) return null
  const { agent_name: _, started_task_id: taskId, ...run } = row
  // A run starting publishes agent.updated even when the agent was already running.
  tx.publish(companyId, { type: 'agent.updated', id: run.agent_id })
  if (taskId) tx.publish(companyId, { type: 'task.updated', id: taskId })
  publishRunUpdated(tx, run)
  return run
}
