import type { Tx } from '../../server/db/write.ts'
import { AppError, notFound } from '../../server/errors.ts'
import type { Actor } from '../../server/actor.ts'
import { diff, recordAudit } from '../audit/record.ts'
import { chainReaches, findInCompany } from '../companies/references.ts'
import { checkSkillIds } from '../skills/service.ts'
import { checkAdapterConfig } from './adapter-config.ts'
import { AGENT_FIELDS, type Agent, type AgentField } from './model.ts'
import { getAgent } from './read.ts'

export type AgentPatch = Partial<Pick<Agent, AgentField>>

/**
 * Edits an agent's fields. A manager must be in the company and must not be the agent itself
 * or one of its reports at any depth (ORG_CYCLE). Writes an audit event and publishes
 * `agent.updated` only when something changed.
 */
export async function updateAgent(tx: Tx, companyId: string, agentId: string, actor: Actor, patch: AgentPatch): Promise<Agent> {
  const locked = await tx.one('SELECT id FROM agents WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2 FOR NO KEY UPDATE', [agentId, companyId])
  if (!locked) throw notFound('Agent')
  const before = await getAgent(tx, companyId, agentId)

  const managerId = patch.reports_to_id
  if (managerId && managerId !== before.reports_to_id) {
    if (managerId === agentId) throw new AppError('ORG_CYCLE', 'An agent cannot report to itself')
    await findInCompany(tx, 'agents', companyId, managerId, 'Manager')
    if (await chainReaches(tx, 'agents', companyId, managerId, agentId)) {
      throw new AppError('ORG_CYCLE', 'An agent cannot report to one of its own reports')
    }
  }

  const after: Record<string, unknown> = { ...before }
  for (const field of AGENT_FIELDS) if (patch[field] !== undefined) after[field] = patch[field]
  const changes = diff(before, after, [...AGENT_FIELDS])
  if (Object.keys(changes).length === 0) return before
  // The settings must suit the adapter the agent ends up with, whichever of the two changed.
  if (changes.adapter || changes.adapter_config) {
    checkAdapterConfig(after.adapter as string | null, after.adapter_config as Record<string, unknown>)
  }

  await tx.query(
    `UPDATE agents
        SET name = $3, title = $4, role = $5, adapter = $6, reports_to_id = $7, heartbeat_cron = $8,
            instructions = $9, capabilities = $10::jsonb, monthly_budget_cents = $11, adapter_config = $12::jsonb,
            max_run_cost_cents = $13, max_runs_per_hour = $14, pause_on_repeat = $15, heartbeat_skip_idle = $16,
            updated_at = now()
      WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2`,
    [
      agentId, companyId, after.name, after.title, after.role, after.adapter, after.reports_to_id, after.heartbeat_cron,
      after.instructions, after.capabilities == null ? null : JSON.stringify(after.capabilities), after.monthly_budget_cents,
      JSON.stringify(after.adapter_config),
      after.max_run_cost_cents, after.max_runs_per_hour, after.pause_on_repeat, after.heartbeat_skip_idle,
    ],
  )
  if (changes.skills) {
    await checkSkillIds(tx, companyId, after.skills as string[])
    await tx.query('UPDATE agents SET skills = $3 WHERE id = $1 AND company_id = $2', [agentId, companyId, after.skills])
  }
  await recordAudit(tx, { companyId, actor, verb: 'updated', entityType: 'agent', entityId: agentId, label: String(after.name), changes })
  tx.publish(companyId, { type: 'agent.updated', id: agentId })
  return getAgent(tx, companyId, agentId)
}
