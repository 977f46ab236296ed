import { agentSpendMtdSql } from '../runs/spend.ts'

// The Agent record as the API returns it (src/contract/agents.ts): the stored fields plus
// month-to-date spend and the number of open tasks assigned to it.
export type { Agent } from '../../contract/agents.ts'

/** Fields set on hire and changed by PATCH, in audit order. */
export const AGENT_FIELDS = [
  'name', 'title', 'role', 'adapter', 'adapter_config', 'reports_to_id', 'heartbeat_cron', 'instructions', 'capabilities',
  'monthly_budget_cents', 'max_run_cost_cents', 'max_runs_per_hour', 'pause_on_repeat', 'heartbeat_skip_idle', 'skills',
] as const
export type AgentField = (typeof AGENT_FIELDS)[number]

/**
 * Open = assigned and neither done nor cancelled: the agent's rows of task_assignee_counts, kept
 * by a trigger on every task write (tasks_counters_follow()), at most 16 whatever the number of
 * its tasks (migration 128: counting them took 3.2 ms an agents list for an agent holding 100,000).
 */
const OPEN_TASKS_SQL = `
  SELECT coalesce(sum(n), 0)::int AS open_tasks FROM task_assignee_counts WHERE agent_id = a.id`

/** FROM clause yielding full Agent records from `agents a`; add WHERE/ORDER after it. */
export const AGENT_SELECT = `
  SELECT a.id, a.company_id, a.name, a.title, a.role, a.adapter, a.adapter_config, a.reports_to_id, a.heartbeat_cron,
         a.instructions, a.capabilities, a.monthly_budget_cents, a.max_run_cost_cents, a.max_runs_per_hour,
         a.pause_on_repeat, a.heartbeat_skip_idle, a.skills, s.spend_mtd_cents, o.open_tasks,
         a.last_activity, a.avatar_seed, a.status, a.created_at
    FROM agents a
    CROSS JOIN LATERAL (${agentSpendMtdSql('a.id')}) s
    CROSS JOIN LATERAL (${OPEN_TASKS_SQL}) o`
