import type { Tx } from '../../server/db/write.ts'
import { approvalLabel } from '../../contract/approvals.ts'
import { agentSpendMtdSql } from './spend.ts'
import { systemActor } from '../../server/actor.ts'
import { recordAudit } from '../audit/record.ts'

/**
 * The budget check made whenever one of the agent's runs reaches a finished status: when its
 * month-to-date spend has reached a non-zero monthly budget, the agent is paused and a
 * `budget_override` approval is opened. The partial unique index approvals_one_pending_override
 * keeps it to one pending approval per agent, however many runs finish at once. An agent that a
 * person resumed while still over budget is paused again here (SPEC.md "Agent status").
 * Terminated agents never leave `terminated`, and a hire still waiting for approval is left to
 * that approval.
 */
export async function enforceBudget(tx: Tx, companyId: string, agentId: string): Promise<void> {
  // The spend adds up run_totals, whose triggers run at commit (runs_totals_follow()). Lock the agent,
  // then have this transaction's pending run changes written to the totals now, so the spend
  // includes the run that just finished. Run, agent, totals: the order every path locks them in.
  const exists = await tx.one('SELECT 1 FROM agents WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2 FOR NO KEY UPDATE', [agentId, companyId])
  if (!exists) return
  await tx.query('SET CONSTRAINTS runs_totalled, runs_retotalled IMMEDIATE')
  const agent = await tx.one<{ name: string; status: string; budget: number; spend: number; month: string }>(
    `SELECT a.name, a.status, a.monthly_budget_cents AS budget, s.spend_mtd_cents AS spend,
            to_char(now(), 'YYYY-MM') AS month
       FROM agents a CROSS JOIN LATERAL (${agentSpendMtdSql('a.id')}) s
      WHERE a.id = $1 AND a.company_id IS NOT DISTINCT FROM $2`,
    [agentId, companyId],
  )
  if (!agent || agent.budget === 0 || agent.spend < agent.budget) return
  if (agent.status === 'terminated' || agent.status === 'pending_approval') return
  const actor = systemActor(agent.name)

  if (agent.status !== 'paused') {
    await tx.query(`UPDATE agents SET status = 'paused', updated_at = now() WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2`, [agentId, companyId])
    await recordAudit(tx, {
      companyId,
      actor,
      verb: 'paused',
      entityType: 'agent',
      entityId: agentId,
      label: agent.name,
      changes: { status: [agent.status, 'paused'] },
    })
    tx.publish(companyId, { type: 'agent.updated', id: agentId })
  }

  const payload = { spend_cents: agent.spend, budget_cents: agent.budget, month: agent.month }
  const opened = await tx.one<{ id: string }>(
    `INSERT INTO approvals (company_id, type, agent_id, payload)
     VALUES ($1, 'budget_override', $2, $3::jsonb)
     ON CONFLICT (agent_id) WHERE type = 'budget_override' AND status = 'pending' DO NOTHING
     RETURNING id`,
    [companyId, agentId, JSON.stringify(payload)],
  )
  if (!opened) return
  await recordAudit(tx, {
    companyId,
    actor,
    verb: 'created',
    entityType: 'approval',
    entityId: opened.id,
    label: approvalLabel('budget_override', agent.name),
    changes: { status: [null, 'pending'] },
  })
  tx.publish(companyId, { type: 'approval.created', id: null })
}
