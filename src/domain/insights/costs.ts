import type { Queryable } from '../../server/db/db.ts'
import { AppError } from '../../server/errors.ts'

/** `YYYY-MM`; a value of another shape is a 422 from the route schema. */
export const MONTH_PATTERN = '^[0-9]{4}-[0-9]{2}$'

/**
 * Spend of one UTC month (API-DECISIONS.md "Costs"): the total, the company budget, and the
 * breakdown by agent, by project (through the run's task) and by day, every day of the month
 * listed. A run counts in the month it was created, as for month-to-date spend. All sums are SQL
 * over the month's range of runs_created_totals. `month` null means the current month; a month
 * outside 01-12 is INVALID_MONTH.
 */
export async function costs(q: Queryable, companyId: string, month: string | null) {
  if (month !== null) {
    const m = Number(month.slice(5))
    if (m < 1 || m > 12) throw new AppError('INVALID_MONTH', 'Month must be between 01 and 12')
  }
  // $2: the first day of the month; the range is [first day, first day of the next month).
  const start = month ? `${month}-01` : null
  const inMonth = (column = 'created_at') => `${column} >= $2::date AND ${column} < ($2::date + interval '1 month')`
  const first = await q.one<{ start: string; month: string; budget: number }>(
    `SELECT to_char(coalesce($2::date, date_trunc('month', now())::date), 'YYYY-MM-DD') AS start,
            to_char(coalesce($2::date, date_trunc('month', now())::date), 'YYYY-MM') AS month,
            monthly_budget_cents AS budget
       FROM companies WHERE id = $1`,
    [companyId, start],
  )
  const params = [companyId, first!.start]
  const [total, byAgent, byProject, byDay] = await Promise.all([
    q.one<{ cents: number }>(`SELECT coalesce(sum(cost_cents), 0) AS cents FROM runs WHERE company_id = $1 AND ${inMonth()}`, params),
    q.many(
      `SELECT r.agent_id, a.name, r.cost_cents, r.tokens_in, r.tokens_out, r.runs
         FROM (SELECT agent_id, sum(cost_cents) AS cost_cents, sum(tokens_in) AS tokens_in, sum(tokens_out) AS tokens_out,
                      count(*)::int AS runs
                 FROM runs WHERE company_id = $1 AND ${inMonth()} GROUP BY agent_id) r
         JOIN agents a ON a.id = r.agent_id
        ORDER BY r.cost_cents DESC, a.name, r.agent_id`,
      params,
    ),
    // One hash join of the month's runs with the company's tasks; grouping by task first
    // would build a table as large as the month's runs.
    q.many(
      `SELECT p.id AS project_id, p.name, c.cost_cents
         FROM (SELECT t.project_id, sum(r.cost_cents) AS cost_cents
                 FROM runs r JOIN tasks t ON t.id = r.task_id AND t.company_id = $1
                WHERE r.company_id = $1 AND ${inMonth('r.created_at')}
                  AND t.project_id IS NOT NULL
                GROUP BY t.project_id) c
         JOIN projects p ON p.id = c.project_id
        ORDER BY c.cost_cents DESC, p.name, p.id`,
      params,
    ),
    q.many(
      `SELECT to_char(g.day, 'YYYY-MM-DD') AS date, coalesce(r.cost_cents, 0)::bigint AS cost_cents
         FROM generate_series($2::date, $2::date + interval '1 month' - interval '1 day', interval '1 day') AS g(day)
         LEFT JOIN (SELECT created_at::date AS day, sum(cost_cents) AS cost_cents
                      FROM runs WHERE company_id = $1 AND ${inMonth()} GROUP BY 1) r ON r.day = g.day::date
        ORDER BY g.day`,
      params,
    ),
  ])
  return {
    month: first!.month,
    total_cents: total!.cents,
    budget_cents: first!.budget,
    by_agent: byAgent,
    by_project: byProject,
    by_day: byDay,
  }
}
