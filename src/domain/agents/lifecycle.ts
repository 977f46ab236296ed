import type { Tx } from '../../server/db/write.ts'
import { invalidState } from '../../server/errors.ts'
import type { Actor } from '../../server/actor.ts'
import { recordAudit } from '../audit/record.ts'
import { BREAKER_APPROVAL } from '../runs/breaker.ts'
import { cancelRuns } from '../runs/cancel.ts'
import type { Agent } from './model.ts'
import { getAgent } from './read.ts'
import type { AgentStatus } from '../../contract/agents.ts'
import { approvalLabel } from '../../contract/approvals.ts'

// Pause, resume and terminate (SPEC.md "Agent status"). Each is one guarded UPDATE that also
// returns the status it replaced; zero rows means the agent is missing or in the wrong state.
// Row locks use FOR NO KEY UPDATE so that writes merely referencing the agent (a task assigned
// to it, a run queued for it) are not blocked.

/**
 * Moves the agent to `to` if its current status is one of `from`; returns the previous status,
 * or null when no row matched. The locking sub-select reads the row after any concurrent
 * change has committed, so the guard and the previous status are consistent.
 */
async function transition(tx: Tx, companyId: string, agentId: string, to: AgentStatus, from: readonly AgentStatus[]): Promise<string | null> {
  const row = await tx.one<{ previous: string }>(
    `UPDATE agents a SET status = $3, updated_at = now()
       FROM (SELECT id, status FROM agents WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2 FOR NO KEY UPDATE) old
      WHERE a.id = old.id AND old.status = ANY($4::text[])
      RETURNING old.status AS previous`,
    [agentId, companyId, to, from],
  )
  return row?.previous ?? null
}

async function recordStatusChange(tx: Tx, companyId: string, agent: Agent, actor: Actor, verb: string, previous: string) {
  await recordAudit(tx, {
    companyId,
    actor,
    verb,
    entityType: 'agent',
    entityId: agent.id,
    label: agent.name,
    changes: { status: [previous, agent.status] },
  })
  tx.publish(companyId, { type: 'agent.updated', id: agent.id })
}

/** Pauses a non-dormant agent. Already paused: 200, nothing changes. Its runs are left alone. */
export async function pauseAgent(tx: Tx, companyId: string, agentId: string, actor: Actor): Promise<Agent> {
  const previous = await transition(tx, companyId, agentId, 'paused', ['idle', 'running', 'error'])
  const agent = await getAgent(tx, companyId, agentId)
  if (previous === null) {
    if (agent.status === 'paused') return agent
    throw invalidState(`Cannot pause an agent that is ${agent.status}`)
  }
  await recordStatusChange(tx, companyId, agent, actor, 'paused', previous)
  return agent
}

/**
 * Resumes a paused agent to `idle`; any other status is INVALID_STATE. The person lets it run:
 * the runaway breaker's count restarts from now (as approving the breaker's approval does), and
 * a pending breaker approval is closed as approved by them, so the inbox keeps no question the
 * resume already answered and the breaker's next trip opens a fresh one (docs/runs.md).
 */
export async function resumeAgent(tx: Tx, companyId: string, agentId: string, actor: Actor): Promise<Agent> {
  // The approval before the agent: the order in which deciding an approval locks them.
  const closed = await tx.many<{ id: string }>(
    `UPDATE approvals SET status = 'approved', decided_by_user_id = $3, decided_at = now(), decision_note = $4, updated_at = now()
      WHERE company_id = $1 AND agent_id = $2 AND status = 'pending' AND ${BREAKER_APPROVAL}
      RETURNING id`,
    [companyId, agentId, actor.type === 'user' ? actor.userId : null, RESUMED_NOTE],
  )
  const previous = await transition(tx, companyId, agentId, 'idle', ['paused'])
  const agent = await getAgent(tx, companyId, agentId)
  if (previous === null) throw invalidState(`Cannot resume an agent that is ${agent.status}`) // (rolls the closing back)
  await tx.query('UPDATE agents SET breaker_reset_at = now() WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2', [agentId, companyId])
  for (const { id } of closed) {
    await recordAudit(tx, {
      companyId, actor, verb: 'approved', entityType: 'approval', entityId: id, label: approvalLabel('action', agent.name),
      changes: { status: ['pending', 'approved'], decision_note: [null, RESUMED_NOTE] },
    })
    tx.publish(companyId, { type: 'approval.updated', id })
  }
  await recordStatusChange(tx, companyId, agent, actor, 'resumed', previous)
  return agent
}

/** The decision note of a breaker approval closed by a resume. */
export const RESUMED_NOTE = 'Answered by resuming the agent'

/**
 * Terminates an agent: its queued and running runs are cancelled, its reports move to its
 * manager (or become roots), and it leaves the org chart. Its history stays.
 *
 * The runs are locked before the agent, the order in which claims and run reports lock them,
 * so a termination racing a claim waits instead of deadlocking. The cancellations leave the
 * agent's status and budget alone: the termination records the status the agent had, and a
 * cancelled run's cost does not pause an agent that is leaving or open an override for it. If
 * the agent turns out to be missing or already terminated, throwing rolls them back.
 */
export async function terminateAgent(tx: Tx, companyId: string, agentId: string, actor: Actor): Promise<Agent> {
  await cancelRuns(tx, companyId, { agentId }, ['queued', 'running'], actor, true)
  const previous = await transition(tx, companyId, agentId, 'terminated', ['idle', 'running', 'paused', 'pending_approval', 'error'])
  const agent = await getAgent(tx, companyId, agentId) // 404 when missing
  if (previous === null) throw invalidState(`Cannot terminate an agent that is ${agent.status}`)
  // A wake or an assignment that committed between the cancellations and the agent's lock
  // queued a run for it; later ones wait for the lock (wakes) or see it terminated.
  await cancelRuns(tx, companyId, { agentId }, ['queued'], actor, true)

  const moved = await tx.many<{ id: string; name: string }>(
    `UPDATE agents SET reports_to_id = $3, updated_at = now()
      WHERE reports_to_id = $1 AND company_id = $2
      RETURNING id, name`,
    [agentId, companyId, agent.reports_to_id],
  )
  for (const report of moved) {
    await recordAudit(tx, {
      companyId,
      actor,
      verb: 'updated',
      entityType: 'agent',
      entityId: report.id,
      label: report.name,
      changes: { reports_to_id: [agentId, agent.reports_to_id] },
    })
    tx.publish(companyId, { type: 'agent.updated', id: report.id })
  }

  await recordStatusChange(tx, companyId, agent, actor, 'terminated', previous)
  return agent
}
