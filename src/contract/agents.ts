import { type Static, Type } from 'typebox'
import { AdapterConfig } from './adapter-config.ts'
import { Cents, Nullable, NullableText, NullableUuid, StringEnum, Timestamp, Uuid, OrNull } from './common.ts'

// Agents: hire, update, lifecycle, org chart.

export const AGENT_STATUSES = ['idle', 'running', 'paused', 'pending_approval', 'terminated', 'error'] as const
export const AgentStatus = StringEnum(AGENT_STATUSES)
export type AgentStatus = Static<typeof AgentStatus>

/**
 * Dormant agents are not woken by assignments, routines or heartbeats, waking them is
 * INVALID_STATE, and runners skip their queued runs.
 */
export const DORMANT_STATUSES: readonly AgentStatus[] = ['paused', 'pending_approval', 'terminated']

/** An assignee is available (gets an assignment run) unless it is dormant. */
export function isDormant(status: string): boolean {
  return (DORMANT_STATUSES as readonly string[]).includes(status)
}


/** What a hire not naming them gets (an import's agent too). */
export const HIRE_DEFAULTS = { role: 'engineer', adapter: 'agent_cli_1' } as const

/** What the agent is good at, as words people and other agents read (`code`, `review`). */
const Capabilities = Type.Array(Type.String(), { description: 'what the agent is good at, e.g. `code`, `review`' })

const text = (maxLength?: number) => Nullable(Type.String(maxLength ? { maxLength } : {}))

/** Settings beyond the specification (API-DECISIONS.md "Agent settings"), on hire and PATCH. */
// 0 or more, within the stored integer (a larger number is a 422, not a database error).
const Count = Type.Integer({ minimum: 0, maximum: 2147483647 })
const settingFields = {
  adapter_config: Type.Optional(AdapterConfig),
  max_run_cost_cents: Type.Optional(Count),
  max_runs_per_hour: Type.Optional(Count),
  pause_on_repeat: Type.Optional(Type.Boolean()),
  heartbeat_skip_idle: Type.Optional(Type.Boolean()),
  skills: Type.Optional(Type.Array(Uuid, { maxItems: 50, uniqueItems: true, description: 'Ids of the company’s skills the agent carries into its runs' })),
}

const commonFields = {
  reports_to_id: Type.Optional(NullableUuid),
  heartbeat_cron: Type.Optional(NullableText),
  instructions: Type.Optional(NullableText),
  capabilities: Type.Optional(Nullable(Capabilities)),
  monthly_budget_cents: Type.Optional(Cents),
  ...settingFields,
}
const Name = Type.String({ minLength: 1, maxLength: 100 })

/** Create-time limits; on update title, role and adapter are not length-checked (SPEC.md). */
export const HireBody = Type.Object({
  name: Name,
  title: Type.Optional(text(120)),
  role: Type.Optional(text(50)),
  adapter: Type.Optional(text(50)),
  ...commonFields,
  request_approval: Type.Optional(Type.Boolean()),
})
export type AgentHire = Static<typeof HireBody>

export const AgentPatchBody = Type.Object({
  name: Type.Optional(Name),
  title: Type.Optional(text()),
  role: Type.Optional(text()),
  adapter: Type.Optional(text()),
  ...commonFields,
})
export type AgentUpdate = Static<typeof AgentPatchBody>
export type AgentFields = AgentUpdate

export const ListAgentsQuery = Type.Object({ include_terminated: Type.Optional(Type.Boolean({ default: false })) })

/** The Agent record: the stored fields plus month-to-date spend and the number of open tasks assigned to it. */
export const Agent = Type.Object({
  id: Uuid,
  company_id: Uuid,
  name: Type.String(),
  title: OrNull(Type.String()),
  role: OrNull(Type.String()),
  adapter: OrNull(Type.String()),
  reports_to_id: OrNull(Uuid),
  heartbeat_cron: OrNull(Type.String()),
  instructions: OrNull(Type.String()),
  capabilities: OrNull(Capabilities),
  monthly_budget_cents: Type.Integer(),
  spend_mtd_cents: Type.Integer(),
  open_tasks: Type.Integer(),
  last_activity: OrNull(Timestamp),
  avatar_seed: Type.Integer(),
  status: AgentStatus,
  created_at: Timestamp,
  /** Per-adapter settings (src/contract/adapter-config.ts); `{}` when none. */
  adapter_config: AdapterConfig,
  /** The runner stops a run whose own cost reaches it (0 = no cap). */
  max_run_cost_cents: Type.Integer(),
  /** Runaway breaker: most runs started in 60 minutes (0 = off). */
  max_runs_per_hour: Type.Integer(),
  /** Pause after 3 finished runs on one task with the same summary. */
  pause_on_repeat: Type.Boolean(),
  /** Scheduled heartbeats skip the agent when it has nothing to do. */
  heartbeat_skip_idle: Type.Boolean(),
  /** Skills (ids) the runner installs for each of the agent's runs. */
  skills: Type.Array(Uuid),
})
export type Agent = Static<typeof Agent>

export interface OrgNode {
  agent: Agent
  reports: OrgNode[]
}
/** The reporting tree; a node's reports are nodes again (the document describes the tree by reference). */
export const OrgNode = Type.Unsafe<OrgNode>({
  type: 'object',
  required: ['agent', 'reports'],
  properties: { agent: Agent, reports: { type: 'array', items: { type: 'object', additionalProperties: true } } },
})
