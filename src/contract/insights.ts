import { type Static, Type } from 'typebox'
import { Approval } from './approvals.ts'
import { DateOnly, OrNull, Uuid } from './common.ts'
import { Run } from './runs.ts'
import { Task } from './tasks.ts'

// Dashboard, costs and inbox: read-only aggregates for any member.

export const DASHBOARD_DAYS = [7, 14, 30] as const

/**
 * A run on the dashboard: every field SPEC.md's Run names, when it may start (`not_before`) and
 * its task's key and title. Not its session, purpose, changes, checks or billing, nor the
 * company (the page's own): the run's page has them, and 20 runs with them were a fifth of a
 * dashboard that every visit of the web app's home reads.
 */
export const DashboardRun = Type.Omit(Run, [
  'company_id', 'session_id', 'purpose', 'changes', 'checks', 'billing', 'waiting_reason',
  'transcript', 'transcript_trimmed_at', 'transcript_count', 'transcript_total',
])
export type DashboardRun = Static<typeof DashboardRun>
/** `YYYY-MM`; a month outside 01-12 is INVALID_MONTH. */
export const MONTH_PATTERN = '^[0-9]{4}-[0-9]{2}$'

export const DashboardQuery = Type.Object({
  days: Type.Optional(Type.Unsafe<7 | 14 | 30>({ type: 'integer', enum: DASHBOARD_DAYS, default: 14 })),
})
export const CostsQuery = Type.Object({ month: Type.Optional(Type.String({ pattern: MONTH_PATTERN })) })

/** End-of-month projection (API-DECISIONS.md "Spend control"). */
export const Forecast = Type.Object({
  month_end_cents: Type.Integer(),
  by_agent: Type.Array(
    Type.Object({ agent_id: Uuid, month_end_cents: Type.Integer(), budget_reached_on: OrNull(DateOnly) }),
  ),
  method: Type.String(),
})
export type Forecast = Static<typeof Forecast>

/** Count per status (or priority), every one listed. */
const Counts = Type.Unsafe<Record<string, number>>({ type: 'object', additionalProperties: { type: 'integer' } })

export const DashboardDay = Type.Object({
  date: DateOnly,
  cost_cents: Type.Integer(),
  runs_failed: Type.Integer(),
  runs_succeeded: Type.Integer(),
  tasks_completed: Type.Integer(),
  tasks_created: Type.Integer(),
})
export type DashboardDay = Static<typeof DashboardDay>

export const Dashboard = Type.Object({
  agents_total: Type.Integer(),
  agents_running: Type.Integer(),
  agents_paused: Type.Integer(),
  tasks_blocked: Type.Integer(),
  tasks_in_progress: Type.Integer(),
  pending_approvals: Type.Integer(),
  tasks_by_status: Counts,
  tasks_by_priority: Counts,
  spend_mtd_cents: Type.Integer(),
  monthly_budget_cents: Type.Integer(),
  range_days: Type.Integer(),
  series: Type.Array(DashboardDay),
  active_runs: Type.Array(DashboardRun),
  for_you: OrNull(Type.Object({ blocked_tasks: Type.Integer(), open_tasks: Type.Integer(), recent: Type.Array(Task) })),
  forecast: Forecast,
})
export type Dashboard = Static<typeof Dashboard>

/**
 * `plan_cents` (beside a cost, part of it): the list-price equivalent of the runs billed on a
 * subscription plan (Run.billing `plan`), paid by the plan rather than per token; the rest of the
 * cost is API spend.
 */
const PlanCents = Type.Integer({ description: 'Part of the cost that is the list-price equivalent of runs on a subscription plan (billing "plan"); the rest is API spend' })

export const Costs = Type.Object({
  month: Type.String(),
  total_cents: Type.Integer(),
  plan_cents: PlanCents,
  budget_cents: Type.Integer(),
  by_agent: Type.Array(
    Type.Object({
      agent_id: Uuid,
      name: Type.String(),
      cost_cents: Type.Integer(),
      plan_cents: PlanCents,
      tokens_in: Type.Integer(),
      tokens_out: Type.Integer(),
      runs: Type.Integer(),
    }),
  ),
  by_project: Type.Array(Type.Object({ project_id: Uuid, name: Type.String(), cost_cents: Type.Integer() })),
  by_day: Type.Array(Type.Object({ date: DateOnly, cost_cents: Type.Integer(), plan_cents: PlanCents })),
  forecast: Forecast,
})
export type Costs = Static<typeof Costs>

export const Inbox = Type.Object({ approvals: Type.Array(Approval), tasks: Type.Array(Task), failed_runs: Type.Array(Run) })
export type Inbox = Static<typeof Inbox>
