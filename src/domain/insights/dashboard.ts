import type { Dashboard, DashboardDay, DashboardRun } from '../../contract/insights.ts'
import type { Task } from '../../contract/tasks.ts'
import type { Db } from '../../server/db/db.ts'
import { namingTasks } from '../runs/model.ts'
import { TASK_PRIORITIES, TASK_SELECT, TASK_STATUSES } from '../tasks/model.ts'
import { type ForecastRow, forecastSql, project } from './forecast.ts'

export { DASHBOARD_DAYS } from '../../contract/insights.ts'

const ACTIVE_RUNS = 20
const RECENT_TASKS = 5
const OPEN = `status NOT IN ('done', 'cancelled')`
/** The columns of a DashboardRun (contract/insights.ts). */
const RUN_COLUMNS = 'id, agent_id, task_id, routine_id, runner_id, status, trigger, tokens_in, tokens_out, cost_cents, summary, error, ' +
  'heartbeat_at, started_at, ended_at, created_at, not_before'

/**
 * The company dashboard (SPEC.md "Dashboard"). Every figure is read from an index range or
 * from totals kept by triggers: agents by status, tasks by status and priority (task_counts),
 * spend since the start of the UTC month and the daily series (run_totals, task_days), the
 * newest active runs (runs_status, per status), and the caller's own open tasks (their
 * totals in task_creator_counts, the newest of them from tasks_open_creator_recent).
 *
 * Three statements side by side: the figures (FIGURES, one statement whose parts come back as
 * JSON), the active runs and the caller's newest tasks (records with timestamps, which the
 * driver writes in the API's form). The figures were seven statements: each cost the server
 * and the database more in its round trip than in its read, and the dashboard is read on every
 * visit of the web app's home. The records folded in as well saved no CPU (what a round trip
 * saved, writing and reading them as JSON cost) and answered later, as one statement reads its
 * parts one after the other: they stay apart, side by side.
 */
export async function dashboard(db: Db, companyId: string, userId: string, days: number): Promise<Dashboard> {
  const now = new Date()
  const monthStart = now.toISOString().slice(0, 8) + '01'
  const [figures, activeRuns, recent] = await Promise.all([
    db.one<Figures>(FIGURES, [companyId, userId, days, monthStart]),
    db.many<DashboardRun>(
      namingTasks(`SELECT * FROM (
         (SELECT ${RUN_COLUMNS} FROM runs WHERE company_id = $1 AND status = 'running' ORDER BY created_at DESC LIMIT ${ACTIVE_RUNS})
         UNION ALL
         (SELECT ${RUN_COLUMNS} FROM runs WHERE company_id = $1 AND status = 'queued' ORDER BY created_at DESC LIMIT ${ACTIVE_RUNS})
       ) active ORDER BY created_at DESC, id DESC LIMIT ${ACTIVE_RUNS}`),
      [companyId],
    ),
    db.many<Task>(
      // The first entries of tasks_open_creator_recent, whose predicate this WHERE repeats.
      `${TASK_SELECT} WHERE t.company_id = $1 AND t.created_by_user_id = $2 AND t.${OPEN}
        ORDER BY t.updated_at DESC, t.id DESC LIMIT ${RECENT_TASKS}`,
      [companyId, userId],
    ),
  ])
  const { agents, task_counts: taskCounts, pending_approvals: pendingApprovals, budget, series, mine, forecast } = figures!
  const projected = project(forecast, monthStart, now)

  const byStatus = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as Record<string, number>
  const byPriority = Object.fromEntries(TASK_PRIORITIES.map((p) => [p, 0])) as Record<string, number>
  for (const row of taskCounts) {
    byStatus[row.status] = (byStatus[row.status] ?? 0) + row.n
    byPriority[row.priority] = (byPriority[row.priority] ?? 0) + row.n
  }
  return {
    agents_total: agents.total,
    agents_running: agents.running,
    agents_paused: agents.paused,
    tasks_blocked: byStatus.blocked,
    tasks_in_progress: byStatus.in_progress,
    pending_approvals: pendingApprovals,
    tasks_by_status: byStatus,
    tasks_by_priority: byPriority,
    spend_mtd_cents: Number(series[0]?.spend_mtd ?? 0),
    monthly_budget_cents: Number(budget),
    forecast: projected,
    range_days: days,
    series: series.map(({ spend_mtd: _, ...day }) => day),
    active_runs: activeRuns,
    for_you: { blocked_tasks: mine.blocked, open_tasks: mine.open, recent },
  }
}

/**
 * Month-to-date spend and the daily series: one entry per UTC day of the range, oldest first,
 * ending today, days without activity 0, each with the month's spend so far. Runs are read from
 * run_totals and tasks from task_days, a few rows per agent and day (a slot each per connection
 * that wrote them) kept by triggers, so the cost does not grow with the number of runs or tasks.
 * $1 company, $3 days.
 */
const SERIES = `
  WITH runs_per_day AS (
    SELECT day, sum(cost_cents) AS cost_cents, sum(runs_failed) AS runs_failed, sum(runs_succeeded) AS runs_succeeded
      FROM run_totals
     WHERE company_id = $1 AND day >= least(date_trunc('month', current_date)::date, current_date - ($3::int - 1))
     GROUP BY day)
  SELECT to_char(g.day, 'YYYY-MM-DD') AS date,
         coalesce(p.cost_cents, 0)::bigint AS cost_cents,
         coalesce(p.runs_failed, 0)::int AS runs_failed,
         coalesce(p.runs_succeeded, 0)::int AS runs_succeeded,
         coalesce(d.completed, 0) AS tasks_completed,
         coalesce(d.created, 0) AS tasks_created,
         (SELECT coalesce(sum(cost_cents), 0) FROM runs_per_day WHERE day >= date_trunc('month', current_date)) AS spend_mtd
    FROM (SELECT ts::date AS day FROM generate_series(current_date - ($3::int - 1), current_date, interval '1 day') ts) g
    LEFT JOIN runs_per_day p ON p.day = g.day
    -- The range's days of task_days, as an index range: joined by day alone, a company the
    -- statistics believe empty had all its days read.
    LEFT JOIN (SELECT day, sum(created)::int AS created, sum(completed)::int AS completed FROM task_days
                WHERE company_id = $1 AND day >= current_date - ($3::int - 1) GROUP BY day) d ON d.day = g.day`

interface Figures {
  agents: { total: number; running: number; paused: number }
  task_counts: Array<{ status: string; priority: string; n: number }>
  pending_approvals: number
  budget: number | string
  series: Array<DashboardDay & { spend_mtd: number | string }>
  mine: { open: number; blocked: number }
  forecast: ForecastRow[]
}

/** The dashboard's figures as one statement. $1 company, $2 the caller, $3 days, $4 the month's first day. */
const FIGURES = `
  SELECT
    (SELECT row_to_json(x) FROM (
       SELECT count(*) FILTER (WHERE status <> 'terminated')::int AS total,
              count(*) FILTER (WHERE status = 'running')::int AS running,
              count(*) FILTER (WHERE status = 'paused')::int AS paused
         FROM agents WHERE company_id = $1) x) AS agents,
    -- Kept by a trigger in slots (tasks_counters_follow()), as are the caller's totals below.
    (SELECT coalesce(json_agg(x), '[]') FROM (
       SELECT status, priority, sum(n)::int AS n FROM task_counts WHERE company_id = $1 GROUP BY status, priority) x) AS task_counts,
    (SELECT count(*)::int FROM approvals WHERE company_id = $1 AND status = 'pending') AS pending_approvals,
    (SELECT monthly_budget_cents FROM companies WHERE id = $1) AS budget,
    (SELECT json_agg(x ORDER BY x.date) FROM (${SERIES}) x) AS series,
    (SELECT row_to_json(x) FROM (
       SELECT coalesce(sum(n) FILTER (WHERE ${OPEN}), 0)::int AS open,
              coalesce(sum(n) FILTER (WHERE status = 'blocked'), 0)::int AS blocked
         FROM task_creator_counts WHERE company_id = $1 AND user_id = $2) x) AS mine,
    (SELECT coalesce(json_agg(x), '[]') FROM (${forecastSql('$1', '$4')}) x) AS forecast`
