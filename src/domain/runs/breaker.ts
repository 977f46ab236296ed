import type { Tx } from '../../server/db/write.ts'
import { approvalLabel } from '../../contract/approvals.ts'
import { isDormant } from '../../contract/agents.ts'
import { systemActor } from '../../server/actor.ts'
import { recordAudit } from '../audit/record.ts'

// The runaway breaker (API-DECISIONS.md "Spend control"; docs/runs.md). Two triggers pause an
// agent, as the system, with an `action` approval whose payload {reason, runs, window_minutes}
// says why:
//   - max_runs_per_hour: a claim would start a run of an agent that already started that many
//     runs in the last 60 minutes (claim_run reports it; claim.ts calls tripRunLimit);
//   - pause_on_repeat: the agent's last 3 finished runs on one task ended with the same
//     non-empty summary (runEnded calls tripRepeat when the third finishes).
// Approving the approval resumes the agent and restarts the count (agents.breaker_reset_at,
// approvals/decide.ts); rejecting leaves it paused. A person's resume restarts the count too and
// closes the approval as approved (agents/lifecycle.ts). Only runs since then count.

export const BREAKER_WINDOW_MINUTES = 60
/** Finished runs on one task with the same summary that trip pause_on_repeat. */
export const REPEATS = 3

export interface BreakerPayload {
  reason: string
  runs: number
  window_minutes: number
}

/** An `action` approval opened by the breaker (approving it resumes the agent). */
export function isBreakerPayload(payload: unknown): payload is BreakerPayload {
  return typeof payload === 'object' && payload !== null && 'window_minutes' in payload && 'reason' in payload
}

/** Since when runs count: the last 60 minutes, or since the breaker's last approval. */
const WINDOW_START = `greatest(now() - interval '${BREAKER_WINDOW_MINUTES} minutes', coalesce(a.breaker_reset_at, '-infinity'))`

/**
 * Pauses the agent if, under its lock, it still has a limit, is not dormant, and has started
 * max_runs_per_hour runs in the window (a concurrent approval or resume may have changed that
 * since claim_run looked). Returns whether it tripped.
 */
export async function tripRunLimit(tx: Tx, companyId: string, agentId: string): Promise<boolean> {
  const agent = await tx.one<{ name: string; status: string; runs: number; limit: number }>(
    `SELECT a.name, a.status, a.max_runs_per_hour AS limit,
            (SELECT count(*)::int FROM runs s WHERE s.agent_id = a.id AND s.started_at >= ${WINDOW_START}) AS runs
       FROM agents a WHERE a.id = $1 AND a.company_id IS NOT DISTINCT FROM $2 FOR NO KEY UPDATE`,
    [agentId, companyId],
  )
  if (!agent || agent.limit === 0 || isDormant(agent.status) || agent.runs < agent.limit) return false
  await trip(tx, companyId, agentId, agent.name, agent.status, {
    reason: `${agent.name} started ${agent.runs} ${agent.runs === 1 ? 'run' : 'runs'} in the last ${BREAKER_WINDOW_MINUTES} minutes, its limit (max_runs_per_hour ${agent.limit})`,
    runs: agent.runs,
    window_minutes: BREAKER_WINDOW_MINUTES,
  })
  return true
}

/**
 * After a run of an agent with pause_on_repeat finished on a task: pauses the agent when its
 * last REPEATS finished runs on that task (since the breaker's last approval) all ended with
 * the same non-empty summary.
 */
export async function tripRepeat(tx: Tx, companyId: string, agentId: string, taskId: string): Promise<boolean> {
  const agent = await tx.one<{ name: string; status: string; repeat: boolean; key: string | null }>(
    `SELECT a.name, a.status, a.pause_on_repeat AS repeat,
            (SELECT c.task_prefix || '-' || t.number FROM tasks t JOIN companies c ON c.id = t.company_id WHERE t.id = $3) AS key
       FROM agents a WHERE a.id = $1 AND a.company_id IS NOT DISTINCT FROM $2 FOR NO KEY UPDATE`,
    [agentId, companyId, taskId],
  )
  if (!agent || !agent.repeat || isDormant(agent.status)) return false
  const last = await tx.one<{ runs: number; with_summary: number; summaries: number; summary: string | null; minutes: number }>(
    `SELECT count(*)::int AS runs, count(r.summary)::int AS with_summary, count(DISTINCT r.summary)::int AS summaries,
            min(r.summary) AS summary,
            ceil(extract(epoch FROM max(r.ended_at) - min(r.ended_at)) / 60)::int AS minutes
       FROM (SELECT r.summary, r.ended_at FROM runs r, agents a
              WHERE r.task_id = $2 AND r.agent_id = $1 AND a.id = $1 AND r.ended_at IS NOT NULL
                AND r.ended_at >= coalesce(a.breaker_reset_at, '-infinity')
              ORDER BY r.ended_at DESC LIMIT ${REPEATS}) r`,
    [agentId, taskId],
  )
  if (!last || last.runs < REPEATS || last.with_summary !== REPEATS || last.summaries !== 1 || !last.summary?.trim()) return false
  await trip(tx, companyId, agentId, agent.name, agent.status, {
    reason: `The last ${REPEATS} runs of ${agent.name} on ${agent.key ?? 'one task'} ended with the same summary (pause_on_repeat)`,
    runs: REPEATS,
    window_minutes: Math.max(1, last.minutes ?? 0),
  })
  return true
}

/** SQL condition on `approvals` matching the breakers' own: an `action` whose payload says its window. */
export const BREAKER_APPROVAL = `type = 'action' AND payload ? 'window_minutes'`

/** Pauses the agent (locked by the caller) as the system and opens the breaker's approval. */
async function trip(tx: Tx, companyId: string, agentId: string, name: string, status: string, payload: BreakerPayload) {
  const actor = systemActor(name)
  await tx.query(`UPDATE agents SET status = 'paused', updated_at = now() WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2`, [agentId, companyId])
  await recordAudit(tx, { companyId, actor, verb: 'paused', entityType: 'agent', entityId: agentId, label: name, changes: { status: [status, 'paused'] } })
  tx.publish(companyId, { type: 'agent.updated', id: agentId })
  // One pending breaker approval per agent (a person's resume closes it, agents/lifecycle.ts).
  const approval = await tx.one<{ id: string }>(
    `INSERT INTO approvals (company_id, type, agent_id, payload)
     SELECT $1, 'action', $2, $3::jsonb
      WHERE NOT EXISTS (SELECT 1 FROM approvals WHERE agent_id = $2 AND company_id = $1 AND status = 'pending'
                           AND ${BREAKER_APPROVAL})
     RETURNING id`,
    [companyId, agentId, JSON.stringify(payload)],
  )
  if (!approval) return
  await recordAudit(tx, {
    companyId, actor, verb: 'created', entityType: 'approval', entityId: approval!.id, label: approvalLabel('action', name),
    changes: { status: [null, 'pending'] },
  })
  tx.publish(companyId, { type: 'approval.created', id: null })
}
