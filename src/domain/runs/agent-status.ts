import type { Tx } from '../../server/db/write.ts'

// An agent's status follows its runs (SPEC.md "Agent status"):
//   idle/error -> running   when one of its runs is claimed (claim.ts) or reported `running`
//                           (report.ts);
//   running -> idle/error   when its last running run ends (error when it failed).
// Dormant agents (paused, pending_approval, terminated) keep their status: a person or a budget
// decided it, and a run ending must not undo that. Both transitions are guarded statements, so
// they are harmless when repeated. A run starting or ending publishes `agent.updated` even
// when the agent's status stays the same (its activity changed). They are part of the run's change and are
// recorded by the run's audit event (started, succeeded, failed, cancelled) rather than by one
// of their own. Every path locks the run before its agent (as terminate does), so concurrent
// writers queue instead of deadlocking.

/** One of the agent's runs ended; `failed` covers lease expiry. */
export async function agentEndedRun(tx: Tx, companyId: string, agentId: string, failed: boolean): Promise<void> {
  await tx.query(
    `UPDATE agents a SET status = $3, last_activity = now(), updated_at = now()
      WHERE a.id = $1 AND a.company_id = $2 AND a.status = 'running'
        AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.agent_id = a.id AND r.status = 'running')`,
    [agentId, companyId, failed ? 'error' : 'idle'],
  )
  tx.publish(companyId, { type: 'agent.updated', id: agentId })
}
