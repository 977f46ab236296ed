import { HIRE_DEFAULTS } from '../../contract/agents.ts'
import type { Tx } from '../../server/db/write.ts'
import type { Actor } from '../../server/actor.ts'
import { diff, recordAudit } from '../audit/record.ts'
import { findInCompany } from '../companies/references.ts'
import { checkSkillIds } from '../skills/service.ts'
import { checkAdapterConfig } from './adapter-config.ts'
import { AGENT_FIELDS, type Agent } from './model.ts'
import { getAgent } from './read.ts'

export interface HireInput {
  name: string
  title?: string | null
  role?: string | null
  adapter?: string | null
  adapter_config?: Record<string, unknown>
  reports_to_id?: string | null
  heartbeat_cron?: string | null
  instructions?: string | null
  capabilities?: unknown[] | null
  monthly_budget_cents?: number
  max_run_cost_cents?: number
  max_runs_per_hour?: number
  pause_on_repeat?: boolean
  heartbeat_skip_idle?: boolean
  request_approval?: boolean
  skills?: string[]
}

/**
 * What a `hire_agent` approval shows the person deciding it: every setting the new agent would
 * start with, so that nothing an agent proposed is approved unseen.
 */
function proposal(agent: Agent): Record<string, unknown> {
  return {
    name: agent.name,
    role: agent.role,
    title: agent.title,
    adapter: agent.adapter,
    adapter_config: agent.adapter_config,
    reports_to_id: agent.reports_to_id,
    heartbeat_cron: agent.heartbeat_cron,
    instructions: agent.instructions,
    monthly_budget_cents: agent.monthly_budget_cents,
    max_run_cost_cents: agent.max_run_cost_cents,
    max_runs_per_hour: agent.max_runs_per_hour,
    pause_on_repeat: agent.pause_on_repeat,
    heartbeat_skip_idle: agent.heartbeat_skip_idle,
  }
}

/**
 * Hires an agent: `idle` at once, or `pending_approval` with a `hire_agent` approval that a
 * person decides later. Publishes `agent.created` (and `approval.created`, id null).
 */
export async function hireAgent(tx: Tx, companyId: string, actor: Actor, requestedBy: string | null, input: HireInput): Promise<Agent> {
  const adapter = input.adapter === undefined ? HIRE_DEFAULTS.adapter : input.adapter
  checkAdapterConfig(adapter, input.adapter_config ?? {})
  if (input.reports_to_id) await findInCompany(tx, 'agents', companyId, input.reports_to_id, 'Manager')
  if (input.skills) await checkSkillIds(tx, companyId, input.skills)
  const status = input.request_approval ? 'pending_approval' : 'idle'
  const row = await tx.one<{ id: string }>(
    `INSERT INTO agents (company_id, name, title, role, adapter, reports_to_id, heartbeat_cron, instructions,
                         capabilities, monthly_budget_cents, status, adapter_config, max_run_cost_cents,
                         max_runs_per_hour, pause_on_repeat, heartbeat_skip_idle)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12::jsonb, $13, $14, $15, $16)
     RETURNING id`,
    [
      companyId,
      input.name,
      input.title ?? null,
      input.role === undefined ? HIRE_DEFAULTS.role : input.role,
      adapter,
      input.reports_to_id ?? null,
      input.heartbeat_cron ?? null,
      input.instructions ?? null,
      input.capabilities == null ? null : JSON.stringify(input.capabilities),
      input.monthly_budget_cents ?? 0,
      status,
      JSON.stringify(input.adapter_config ?? {}),
      input.max_run_cost_cents ?? 0,
      input.max_runs_per_hour ?? 0,
      input.pause_on_repeat ?? false,
      input.heartbeat_skip_idle ?? false,
    ],
  )
  if (input.skills?.length) await tx.query('UPDATE agents SET skills = $2 WHERE id = $1', [row!.id, input.skills])
  const agent = await getAgent(tx, companyId, row!.id)
  await recordAudit(tx, {
    companyId,
    actor,
    verb: 'hired',
    entityType: 'agent',
    entityId: agent.id,
    label: agent.name,
    changes: diff({}, agent, [...AGENT_FIELDS, 'status']),
  })
  tx.publish(companyId, { type: 'agent.created', id: agent.id })

  if (input.request_approval) {
    const approval = await tx.one<{ id: string }>(
      `INSERT INTO approvals (company_id, type, agent_id, payload, requested_by_user_id, requested_by_agent_id)
       VALUES ($1, 'hire_agent', $2, $3::jsonb, $4, $5)
       RETURNING id`,
      [companyId, agent.id, JSON.stringify(proposal(agent)), requestedBy,
        actor.type === 'agent' ? actor.agentId : null],
    )
    await recordAudit(tx, {
      companyId,
      actor,
      verb: 'created',
      entityType: 'approval',
      entityId: approval!.id,
      label: `Hire ${agent.name}`,
      changes: { status: [null, 'pending'] },
    })
    tx.publish(companyId, { type: 'approval.created', id: null })
  }
  return agent
}
