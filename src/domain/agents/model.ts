import { agentSpendMtdSql } from '../runs/spend.ts'

// The Agent record as the API returns it (src/contract/agents.ts): the stored fields plus
// month-to-date spend and the number of open tasks assigned to it.
export type { Agent } from '../../contract/agents.ts'

/** Fields set on hire and changed by PATCH, in audit order. */
export const AGENT_FIELDS = [
  'name', 'title', 'role', 'adapter', 'adapter_config', 'reports_to_id', 'heartbeat_cron', 'instructions', 'capabilities',
  'monthly_budget_cents',
] as const
export type AgentField = (typeof AGENT_FIELDS)[number]

/**
 * Open = assigned and neither done nor cancelled. The agent row is already limited to the
 * company, and a task can only be assigned within its company, so the count needs no company
 * condition - adding one makes the planner combine it with a company-wide index. The partial
 * index tasks_open_assignee makes it an index-only scan.
 */
const OPEN_TASKS_SQL = `
  SELECT count(*)::int AS open_tasks FROM tasks t
   WHERE t.assignee_agent_id = a.id AND t.status NOT IN ('done', 'cancelled')`

/** FROM clause yielding full Agent records from `agents a`; add WHERE/ORDER after it. */
export const AGENT_SELECT = `
  SELECT a.id, a.company_id, a.name, a.title, a.role, a.adapter, a.adapter_config, a.reports_to_id, a.heartbeat_cron,
         a.instructions, a.capabilities, a.monthly_budget_cents, s.spend_mtd_cents, o.open_tasks,
         a.last_activity, a.avatar_seed, a.status, a.created_at,
         a.max_run_cost_cents, a.max_runs_per_hour, a.pause_on_repeat, a.heartbeat_skip_idle
    FROM agents a
    CROSS JOIN LATERAL (${agentSpendMtdSql('a.id')}) s
    CROSS JOIN LATERAL (${OPEN_TASKS_SQL}) o`
