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


const text = (maxLength?: number) => Nullable(Type.String(maxLength ? { maxLength } : {}))

/** Settings beyond the specification (API-DECISIONS.md "Agent settings"), on hire and PATCH. */
const settingFields = {
  adapter_config: Type.Optional(AdapterConfig),
  max_run_cost_cents: Type.Optional(Cents),
  max_runs_per_hour: Type.Optional(Cents),
  pause_on_repeat: Type.Optional(Type.Boolean()),
  heartbeat_skip_idle: Type.Optional(Type.Boolean()),
}

const commonFields = {
  reports_to_id: Type.Optional(NullableUuid),
  heartbeat_cron: Type.Optional(NullableText),
  instructions: Type.Optional(NullableText),
  capabilities: Type.Optional(Nullable(Type.Array(Type.Unknown()))),
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
  capabilities: OrNull(Type.Array(Type.Unknown())),
  monthly_budget_cents: Type.Integer(),
  spend_mtd_cents: Type.Integer(),
  open_tasks: Type.Integer(),
  last_activity: OrNull(Timestamp),
  avatar_seed: Type.Integer(),
  status: AgentStatus,
  created_at: Timestamp,
  /** Per-adapter settings (src/contract/adapter-config.ts); `{}` when none. */
  adapter_config: Type.Unsafe<AdapterConfig>({ type: 'object', additionalProperties: true }),
  max_run_cost_cents: Type.Optional(Type.Integer()),
  max_runs_per_hour: Type.Optional(Type.Integer()),
  pause_on_repeat: Type.Optional(Type.Boolean()),
  heartbeat_skip_idle: Type.Optional(Type.Boolean()),
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
