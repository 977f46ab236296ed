import type { AppContext } from '../../server/context.ts'
import { type Tx, write } from '../../server/db/write.ts'
import { AppError, invalidState, notFound } from '../../server/errors.ts'
import { agentSpendMtdSql } from '../runs/spend.ts'
import { terminateAgent } from '../agents/lifecycle.ts'
import type { Actor } from '../../server/actor.ts'
import { diff, recordAudit } from '../audit/record.ts'
import { isBreakerPayload } from '../runs/breaker.ts'
import { APPROVAL_COLUMNS, type Approval, approvalLabel } from './model.ts'

export interface Decision {
  decision: 'approve' | 'reject'
  decision_note?: string | null
  /** Approve only: the agent's new monthly budget (budget_override). */
  new_budget_cents?: number | null
}

type Current = Approval & { agent_name: string | null; agent_status: string | null }

/**
 * Approves or rejects a pending approval and applies its effect (SPEC.md "Approval status and
 * types"), all in one transaction:
 *   hire_agent       approve: the pending agent becomes idle;   reject: it is terminated.
 *   budget_override  approve: new budget (given, or this month's spend plus the current non-zero
 *                    budget) and a paused agent becomes idle;  reject: the agent stays paused.
 *   action           the decision is recorded, nothing else; except the runaway breaker's
 *                    (runs/breaker.ts): approve: a paused agent becomes idle and its count
 *                    restarts now;  reject: the agent stays paused.
 * A decided approval is ALREADY_DECIDED before anything else is looked at; approving one whose
 * agent is terminated is INVALID_STATE (it can still be rejected).
 */
export async function decideApproval(ctx: Pick<AppContext, 'db' | 'bus'>, companyId: string, approvalId: string, input: Decision, actor: Actor & { type: 'user' }): Promise<Approval> {
  return write(ctx, async (tx) => {
    const current = await tx.one<Current>(
      `SELECT ${APPROVAL_COLUMNS}, a.name AS agent_name, a.status AS agent_status
         FROM approvals ap LEFT JOIN agents a ON a.id = ap.agent_id
        WHERE ap.id = $1 AND ap.company_id IS NOT DISTINCT FROM $2
        FOR NO KEY UPDATE OF ap`,
      [approvalId, companyId],
    )
    if (!current) throw notFound('Approval')
    if (current.status !== 'pending') throw new AppError('ALREADY_DECIDED', `Approval is already ${current.status}`)
    const approve = input.decision === 'approve'
    if (approve && current.agent_status === 'terminated') throw invalidState('The agent is terminated; reject the approval instead')

    const decided = (await tx.one<Approval>(
      `UPDATE approvals ap SET status = $3, decided_by_user_id = $4, decided_at = now(), decision_note = $5,
              new_budget_cents = $6, updated_at = now()
        WHERE ap.id = $1 AND ap.company_id IS NOT DISTINCT FROM $2 AND ap.status = 'pending'
        RETURNING ${APPROVAL_COLUMNS}`,
      [approvalId, companyId, approve ? 'approved' : 'rejected', actor.userId, input.decision_note ?? null,
        approve ? input.new_budget_cents ?? null : null],
    ))!
    await recordAudit(tx, {
      companyId,
      actor,
      verb: decided.status,
      entityType: 'approval',
      entityId: approvalId,
      label: approvalLabel(decided.type, current.agent_name),
      changes: diff(current, decided, ['status', 'decision_note', 'new_budget_cents']),
    })
    tx.publish(companyId, { type: 'approval.updated', id: approvalId })

    if (current.agent_id) {
      await applyToAgent(tx, companyId, current, decided, actor)
      tx.publish(companyId, { type: 'agent.updated', id: current.agent_id })
    }
    return decided
  })
}

async function applyToAgent(tx: Tx, companyId: string, current: Current, decided: Approval, actor: Actor) {
  const agentId = current.agent_id!
  const approved = decided.status === 'approved'
  if (current.type === 'hire_agent') {
    if (current.agent_status !== 'pending_approval') return
    if (!approved) {
      await terminateAgent(tx, companyId, agentId, actor)
      return
    }
    await updateAgent(tx, companyId, agentId, actor, `status = CASE WHEN status = 'pending_approval' THEN 'idle' ELSE status END`, [])
  } else if (current.type === 'budget_override' && approved) {
    // The explicit budget, else a non-zero budget raised by this month's spend (0 stays "no limit").
    await updateAgent(
      tx, companyId, agentId, actor,
      `monthly_budget_cents = coalesce($3::bigint,
         CASE WHEN monthly_budget_cents > 0 THEN monthly_budget_cents + (${agentSpendMtdSql('$1')}) ELSE 0 END),
       status = CASE WHEN status = 'paused' THEN 'idle' ELSE status END`,
      [decided.new_budget_cents],
    )
  } else if (current.type === 'action' && approved && isBreakerPayload(current.payload)) {
    await updateAgent(tx, companyId, agentId, actor, `breaker_reset_at = now(), status = CASE WHEN status = 'paused' THEN 'idle' ELSE status END`, [])
  }
}

/** Applies `assignments` to the agent and audits what changed, as `updated` by the decider. */
async function updateAgent(tx: Tx, companyId: string, agentId: string, actor: Actor, assignments: string, extra: unknown[]) {
  const fields = ['status', 'monthly_budget_cents']
  const row = await tx.one<{ name: string; old: Record<string, unknown>; new: Record<string, unknown> }>(
    `WITH old (id, old_status, old_budget) AS (
       SELECT id, status, monthly_budget_cents FROM agents WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2 FOR NO KEY UPDATE)
     UPDATE agents SET ${assignments}, updated_at = now()
       FROM old WHERE agents.id = old.id
     RETURNING agents.name,
               jsonb_build_object('status', old.old_status, 'monthly_budget_cents', old.old_budget) AS old,
               jsonb_build_object('status', agents.status, 'monthly_budget_cents', agents.monthly_budget_cents) AS new`,
    [agentId, companyId, ...extra],
  )
  if (!row) return
  const changes = diff(row.old, row.new, fields)
  if (Object.keys(changes).length === 0) return
  await recordAudit(tx, { companyId, actor, verb: 'updated', entityType: 'agent', entityId: agentId, label: row.name, changes })
}
