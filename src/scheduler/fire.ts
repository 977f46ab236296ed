// Firing one slot of one definition. Each slot is decided by one guarded statement in the
// transaction that also does the work, so when several scheduler instances share a database
// exactly one of them fires it: the others block on the row the winner changed, then find the
// guard false once it commits (READ COMMITTED re-checks the updated row).
import { systemActor } from '../server/actor.ts'
import { DORMANT_STATUSES } from '../contract/agents.ts'
import { triggerRoutineIn } from '../domain/routines/trigger.ts'
import { wakeAgentIn } from '../domain/runs/wake.ts'
import type { AppContext } from '../server/context.ts'
import { write } from '../server/db/write.ts'
import type { Definition } from './definitions.ts'

export interface Slot {
  at: Date
  /** An earlier run this close to `at` makes the slot a duplicate (see cron.ts). */
  windowMs: number
}

/**
 * What an agent with heartbeat_skip_idle must have for a heartbeat to wake it (docs/runs.md):
 * a task assigned to it that is `todo` or `in_progress` (ready work: `backlog` is not, as an
 * assignment in backlog queues no run; `in_review` waits on a person), or a person's comment
 * on a `blocked` task of its own made since its last run on that task started (not yet seen).
 * Both reads use the agent's open tasks (tasks_open_assignee); a blocked task's comments and
 * runs by their task index. The agent's tasks are all of its company, which is given in a form
 * no index takes (docs/ARCHITECTURE.md): given plainly, a company the statistics believe empty
 * was read through tasks_status, every todo and in_progress task of it, at each idle slot.
 */
const HAS_WORK_SQL = `
  SELECT EXISTS (SELECT 1 FROM tasks t WHERE t.assignee_agent_id = $1 AND t.company_id IS NOT DISTINCT FROM $2
                   AND t.status IN ('todo', 'in_progress'))
      OR EXISTS (SELECT 1 FROM tasks t JOIN task_comments c ON c.task_id = t.id AND c.company_id = t.company_id
                  WHERE t.assignee_agent_id = $1 AND t.company_id IS NOT DISTINCT FROM $2 AND t.status = 'blocked'
                    AND c.author_user_id IS NOT NULL
                    AND c.created_at > coalesce((SELECT max(r.started_at) FROM runs r
                                                  WHERE r.task_id = t.id AND r.agent_id = $1), '-infinity')) AS has_work`

/** `fired`; `skipped` (another instance fired the slot, the agent is dormant or gone, its cron changed); `idle`. */
export type HeartbeatResult = 'fired' | 'skipped' | 'idle'

/**
 * Wakes an agent for a slot of its heartbeat_cron: a `manual` run whose first transcript entry
 * says why. Skipped when another instance fired the slot, the agent is dormant or gone, or its
 * heartbeat_cron changed since the definitions were read; `idle` (the slot is used, nothing is
 * queued) when the agent has heartbeat_skip_idle and nothing to do.
 */
export async function fireHeartbeat(ctx: AppContext, def: Definition, slot: Slot): Promise<HeartbeatResult> {
  return write(ctx, async (tx) => {
    const claimed = await tx.one(
      `INSERT INTO agent_heartbeat_slots (agent_id, company_id, last_slot_at)
       SELECT a.id, a.company_id, $3::timestamptz FROM agents a
        WHERE a.id = $1 AND a.company_id IS NOT DISTINCT FROM $2 AND a.heartbeat_cron = $4 AND NOT (a.status = ANY($6::text[]))
       ON CONFLICT (agent_id) DO UPDATE SET last_slot_at = EXCLUDED.last_slot_at
        WHERE agent_heartbeat_slots.last_slot_at < EXCLUDED.last_slot_at - $5::double precision * interval '1 millisecond'
       RETURNING agent_id`,
      [def.id, def.companyId, slot.at.toISOString(), def.cron, slot.windowMs, DORMANT_STATUSES],
    )
    if (!claimed) return 'skipped'
    const agent = await tx.one<{ name: string; heartbeat_skip_idle: boolean }>(
      'SELECT name, heartbeat_skip_idle FROM agents WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2',
      [def.id, def.companyId],
    )
    if (agent!.heartbeat_skip_idle) {
      const work = await tx.one<{ has_work: boolean }>(HAS_WORK_SQL, [def.id, def.companyId])
      if (!work!.has_work) return 'idle'
    }
    const reason = `Scheduled heartbeat (cron "${def.cron.trim()}", slot ${slot.at.toISOString()})`
    await wakeAgentIn(tx, def.companyId, def.id, { reason }, systemActor(agent!.name))
    return 'fired'
  })
}

/**
 * Triggers a routine for a slot, through the same service as a person's trigger (a task and a
 * `routine` run; last_run_at becomes now, or the slot when that is later). The guard is a no-op update that takes the routine's
 * row lock and checks, in one statement, that the routine is still enabled with the same cron,
 * that its agent is not dormant, that it has not run within the slot's window (by the
 * scheduler or by a person), and that no run of it waits for a provider limit's reset.
 */
export async function fireRoutine(ctx: AppContext, def: Definition, slot: Slot): Promise<boolean> {
  return write(ctx, async (tx) => {
    const claimed = await tx.one<{ agent_name: string }>(
      `UPDATE routines r SET last_run_at = r.last_run_at
        WHERE r.id = $1 AND r.company_id IS NOT DISTINCT FROM $2 AND r.enabled AND r.cron = $3
          AND (r.last_run_at IS NULL OR r.last_run_at < $4::timestamptz - $5::double precision * interval '1 millisecond')
          AND EXISTS (SELECT 1 FROM agents a WHERE a.id = r.agent_id AND NOT (a.status = ANY($6::text[])))
          -- The routine's last run met a provider limit and waits for its reset (runs/defer.ts):
          -- that run does the routine's work, another task and run would only pile up behind it.
          AND NOT EXISTS (SELECT 1 FROM runs q WHERE q.agent_id = r.agent_id AND q.routine_id = r.id
                            AND q.status = 'queued' AND q.not_before > now())
        RETURNING (SELECT a.name FROM agents a WHERE a.id = r.agent_id) AS agent_name`,
      [def.id, def.companyId, def.cron, slot.at.toISOString(), slot.windowMs, DORMANT_STATUSES],
    )
    if (!claimed) return false
    await triggerRoutineIn(tx, def.companyId, def.id, systemActor(claimed.agent_name))
    // The trigger stamps the database's now(); should that clock lag behind the slot, the slot
    // itself is kept, so that the guard of every other instance still sees this slot as done.
    await tx.query('UPDATE routines SET last_run_at = greatest(last_run_at, $3::timestamptz) WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2', [
      def.id,
      def.companyId,
      slot.at.toISOString(),
    ])
    return true
  })
}
