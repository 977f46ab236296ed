import type { Queryable } from '../../server/db/db.ts'
import { MONTH_START_SQL } from '../agents/spend.ts'
import { runColumns } from '../runs/model.ts'
import { TASK_SELECT, TASK_PRIORITIES, TASK_STATUSES } from '../tasks/model.ts'

export const DASHBOARD_DAYS = [7, 14, 30] as const

const ACTIVE_RUNS = 20
const RECENT_TASKS = 5
const OPEN = `status NOT IN ('done', 'cancelled')`

/**
 * The company dashboard (SPEC.md "Dashboard"). Every figure is one aggregate in SQL over an
 * index range: agents by status, tasks by status and priority (tasks_status_priority), spend
 * since the start of the UTC month and the daily series (runs_created_totals, tasks_created_day,
 * tasks_completed_day), the newest active runs (runs_status, per status), and the caller's own
 * open tasks (tasks_created_by). The queries are independent and run side by side.
 */
export async function dashboard(q: Queryable, companyId: string, userId: string, days: number) {
  const [agents, taskCounts, approvals, money, series, activeRuns, mine, recent] = await Promise.all([
    q.one<{ total: number; running: number; paused: number }>(
      `SELECT count(*) FILTER (WHERE status <> 'terminated')::int AS total,
              count(*) FILTER (WHERE status = 'running')::int AS running,
              count(*) FILTER (WHERE status = 'paused')::int AS paused
         FROM agents WHERE company_id = $1`,
      [companyId],
    ),
    q.many<{ status: string; priority: string; n: number }>(
      'SELECT status, priority, count(*)::int AS n FROM tasks WHERE company_id = $1 GROUP BY status, priority',
      [companyId],
    ),
    q.one<{ n: number }>(`SELECT count(*)::int AS n FROM approvals WHERE company_id = $1 AND status = 'pending'`, [companyId]),
    q.one<{ spend: number; budget: number }>(
      `SELECT (SELECT coalesce(sum(cost_cents), 0) FROM runs WHERE company_id = $1 AND created_at >= ${MONTH_START_SQL}) AS spend,
              monthly_budget_cents AS budget
         FROM companies WHERE id = $1`,
      [companyId],
    ),
    dailySeries(q, companyId, days),
    q.many(
      `SELECT * FROM (
         (SELECT ${runColumns()} FROM runs WHERE company_id = $1 AND status = 'running' ORDER BY created_at DESC LIMIT ${ACTIVE_RUNS})
         UNION ALL
         (SELECT ${runColumns()} FROM runs WHERE company_id = $1 AND status = 'queued' ORDER BY created_at DESC LIMIT ${ACTIVE_RUNS})
       ) active ORDER BY created_at DESC, id DESC LIMIT ${ACTIVE_RUNS}`,
      [companyId],
    ),
    q.one<{ open: number; blocked: number }>(
      `SELECT count(*)::int AS open, count(*) FILTER (WHERE status = 'blocked')::int AS blocked
         FROM tasks WHERE created_by_user_id = $2 AND company_id = $1 AND ${OPEN}`,
      [companyId, userId],
    ),
    q.many(
      `${TASK_SELECT} WHERE t.created_by_user_id = $2 AND t.company_id = $1 AND t.${OPEN}
        ORDER BY t.updated_at DESC, t.id DESC LIMIT ${RECENT_TASKS}`,
      [companyId, userId],
    ),
  ])

  const byStatus = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as Record<string, number>
  const byPriority = Object.fromEntries(TASK_PRIORITIES.map((p) => [p, 0])) as Record<string, number>
  for (const row of taskCounts) {
    byStatus[row.status] = (byStatus[row.status] ?? 0) + row.n
    byPriority[row.priority] = (byPriority[row.priority] ?? 0) + row.n
  }
  return {
    agents_total: agents!.total,
    agents_running: agents!.running,
    agents_paused: agents!.paused,
    tasks_blocked: byStatus.blocked,
    tasks_in_progress: byStatus.in_progress,
    pending_approvals: approvals!.n,
    tasks_by_status: byStatus,
    tasks_by_priority: byPriority,
    spend_mtd_cents: money!.spend,
    monthly_budget_cents: money!.budget,
    range_days: days,
    series,
    active_runs: activeRuns,
    for_you: { blocked_tasks: mine!.blocked, open_tasks: mine!.open, recent },
  }
}

/** One entry per UTC day of the range, oldest first, ending today; days without activity are 0. */
function dailySeries(q: Queryable, companyId: string, days: number) {
  return q.many(
    `WITH range AS (SELECT current_date - ($2::int - 1) AS first_day),
     runs_by_day AS (
       SELECT created_at::date AS day, sum(cost_cents) AS cost_cents,
              count(*) FILTER (WHERE status = 'failed') AS runs_failed,
              count(*) FILTER (WHERE status = 'succeeded') AS runs_succeeded
         FROM runs, range WHERE company_id = $1 AND created_at >= range.first_day GROUP BY 1),
     created AS (
       SELECT created_at::date AS day, count(*) AS n FROM tasks, range
        WHERE company_id = $1 AND created_at >= range.first_day GROUP BY 1),
     completed AS (
       SELECT completed_at::date AS day, count(*) AS n FROM tasks, range
        WHERE company_id = $1 AND completed_at >= range.first_day GROUP BY 1)
     SELECT to_char(d.day, 'YYYY-MM-DD') AS date,
            coalesce(r.cost_cents, 0)::bigint AS cost_cents,
            coalesce(r.runs_failed, 0)::int AS runs_failed,
            coalesce(r.runs_succeeded, 0)::int AS runs_succeeded,
            coalesce(done.n, 0)::int AS tasks_completed,
            coalesce(made.n, 0)::int AS tasks_created
       FROM range, generate_series(range.first_day, current_date, interval '1 day') AS g(ts)
       CROSS JOIN LATERAL (SELECT g.ts::date AS day) d
       LEFT JOIN runs_by_day r ON r.day = d.day
       LEFT JOIN created made ON made.day = d.day
       LEFT JOIN completed done ON done.day = d.day
      ORDER BY d.day`,
    [companyId, days],
  )
}
