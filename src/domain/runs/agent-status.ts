import type { Tx } from '../../server/db/write.ts'
import { recordAudit, systemActor } from '../audit/record.ts'

// An agent's status follows its runs (SPEC.md "Agent status"):
//   idle/error -> running   when one of its runs is claimed or reported `running`;
//   running -> idle/error   when its last running run ends (error when it failed).
// Dormant agents (paused, pending_approval, terminated) keep their status: a person or a budget
// decided it, and a run ending must not undo that. Both transitions are guarded statements, so
// they are harmless when repeated, and both publish `agent.updated` because the agent's
// activity changed even when its status did not. Every path locks the run before its agent
// (as terminate does), so concurrent writers queue instead of deadlocking.

/** One of the agent's runs started (claim) or reported `running`. */
export async function agentStartedRun(tx: Tx, companyId: string, agentId: string): Promise<void> {
  await moveAgent(tx, companyId, agentId, ['idle', 'error'], 'running', false)
}

/** One of the agent's runs ended; `failed` covers lease expiry. */
export async function agentEndedRun(tx: Tx, companyId: string, agentId: string, failed: boolean): Promise<void> {
  await moveAgent(tx, companyId, agentId, ['running'], failed ? 'error' : 'idle', true)
}

async function moveAgent(tx: Tx, companyId: string, agentId: string, from: string[], to: string, onlyWhenNoneRunning: boolean) {
  const moved = await tx.one<{ name: string; old_status: string }>(
    `WITH old AS (SELECT id, status FROM agents WHERE id = $1 AND company_id = $2 FOR NO KEY UPDATE)
     UPDATE agents a SET status = $4, last_activity = now(), updated_at = now()
       FROM old
      WHERE a.id = old.id AND old.status = ANY($3::text[])
        AND (NOT $5::boolean OR NOT EXISTS (SELECT 1 FROM runs r WHERE r.agent_id = a.id AND r.status = 'running'))
      RETURNING a.name, old.status AS old_status`,
    [agentId, companyId, from, to, onlyWhenNoneRunning],
  )
  if (moved) {
    await recordAudit(tx, {
      companyId,
      actor: systemActor(moved.name),
      verb: 'updated',
      entityType: 'agent',
      entityId: agentId,
      label: moved.name,
      changes: { status: [moved.old_status, to] },
    })
  } else {
    await tx.query('UPDATE agents SET last_activity = now() WHERE id = $1 AND company_id = $2', [agentId, companyId])
  }
  tx.publish(companyId, { type: 'agent.updated', id: agentId })
}
