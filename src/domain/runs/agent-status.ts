import type { Tx } from '../../server/db/write.ts'
import { runningAgentIs } from './model.ts'

// An agent's status follows its runs (SPEC.md "Agent status"):
//   idle/error -> running   when one of its runs is claimed (claim_run()) or
//                           reported `running` (report.ts);
//   running -> idle/error   when its last running run ends (error when it failed): below, and
//                           repeated in report.ts's one-statement finish (FINISH_UNBUDGETED);
//                           change both together.
// Dormant agents (paused, pending_approval, terminated) keep their status: a person or a budget
// decided it, and a run ending must not undo that. Both transitions are guarded statements, so
// they are harmless when repeated. A run starting or ending publishes `agent.updated` even when
// the agent's status stays the same (its activity changed). They are part of the run's change
// and are recorded by the run's audit event (started, succeeded, failed, cancelled) rather than
// by one of their own. Every path locks the run before its agent (as terminate does), so
// concurrent writers queue instead of deadlocking. Each "no other running run" check asks
// through runningAgentIs (model.ts): one probe of a unique index whatever the statistics.

/**
 * One of the agent's runs ended (`wasRunning`: it had started; `failed` covers lease expiry):
 * when it was the agent's last running run, the agent moves from running to idle, or to error
 * when the run failed. Answers the agent's name and monthly budget, read by the same statement
 * (the run's audit label and budget check need them).
 */
export async function agentEndedRun(tx: Tx, companyId: string, agentId: string, wasRunning: boolean, failed: boolean) {
  const agent = await tx.one<{ name: string; budget: number; pause_on_repeat: boolean }>(
    `WITH moved AS (
       UPDATE agents a SET status = $3, last_activity = now(), updated_at = now()
        WHERE a.id = $1 AND a.company_id IS NOT DISTINCT FROM $2 AND $4 AND a.status = 'running'
          AND NOT EXISTS (SELECT 1 FROM runs r WHERE ${runningAgentIs('r', 'a.id')})
     )
     SELECT name, monthly_budget_cents AS budget, pause_on_repeat FROM agents WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2`,
    [agentId, companyId, failed ? 'error' : 'idle', wasRunning],
  )
  tx.publish(companyId, { type: 'agent.updated', id: agentId })
  return agent
}
