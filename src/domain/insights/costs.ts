import type { Costs } from '../../contract/insights.ts'
import type { Db } from '../../server/db/db.ts'
import { AppError } from '../../server/errors.ts'
import { type ForecastRow, forecastSql, project } from './forecast.ts'

/** `YYYY-MM`; a value of another shape is a 422 from the route schema. */
export { MONTH_PATTERN } from '../../contract/insights.ts'

/**
 * The month's first day. The month's rows are read with it written out, not taken from `m`:
 * bounds that come from another part of the statement are no index condition, and in a company
 * the statistics believe empty the plan then read the company's whole history of totals.
 */
const MONTH_START = `coalesce($2::date, date_trunc('month', current_date)::date)`

/**
 * Spend of one UTC month (API-DECISIONS.md "Costs"): the total, the company budget, and the
 * breakdown by agent, by project (through the run's task) and by day, every day of the month
 * listed; lists ordered by cost. A run counts in the month it was created, as for month-to-date
 * spend, and for the project its task is in now. One statement over the month's rows of
 * run_totals (a few per agent and day, kept by triggers: runs_totals_follow()), the month-end
 * forecast's rows included.
 * `month` null means the current month; a month outside 01-12 is INVALID_MONTH.
 */
export async function costs(db: Db, companyId: string, month: string | null): Promise<Costs> {
  if (month !== null) {
    const m = Number(month.slice(5))
    if (m < 1 || m > 12) throw new AppError('INVALID_MONTH', 'Month must be between 01 and 12')
  }
  const sums = (await db.one<{ month: string; budget: number; total_cents: number; by_agent: Costs['by_agent']; by_project: Costs['by_project']; by_day: Costs['by_day']; forecast: ForecastRow[] }>(
    `WITH m AS (SELECT ${MONTH_START} AS start),
     totals AS MATERIALIZED (
       SELECT t.* FROM run_totals t
        WHERE t.company_id = $1 AND t.day >= ${MONTH_START} AND t.day < (${MONTH_START} + interval '1 month')::date)
     SELECT
       (SELECT to_char(start, 'YYYY-MM') FROM m) AS month,
       (SELECT monthly_budget_cents FROM companies WHERE id = $1) AS budget,
       (SELECT coalesce(sum(cost_cents), 0) FROM totals) AS total_cents,
       (SELECT coalesce(jsonb_agg(x ORDER BY x.cost_cents DESC, x.name, x.agent_id), '[]'::jsonb)
          FROM (SELECT t.agent_id, a.name, sum(t.cost_cents) AS cost_cents, sum(t.tokens_in) AS tokens_in,
                       sum(t.tokens_out) AS tokens_out, sum(t.runs)::int AS runs
                  FROM totals t JOIN agents a ON a.id = t.agent_id
                 GROUP BY t.agent_id, a.name HAVING sum(t.runs) > 0) x) AS by_agent,
       (SELECT coalesce(jsonb_agg(x ORDER BY x.cost_cents DESC, x.name, x.project_id), '[]'::jsonb)
          FROM (SELECT t.project_id, p.name, sum(t.cost_cents) AS cost_cents
                  FROM totals t JOIN projects p ON p.id = t.project_id
                 GROUP BY t.project_id, p.name HAVING sum(t.runs) > 0) x) AS by_project,
       (SELECT jsonb_agg(jsonb_build_object('date', to_char(g.day, 'YYYY-MM-DD'), 'cost_cents', coalesce(d.cost_cents, 0)) ORDER BY g.day)
          FROM m, generate_series(m.start, m.start + interval '1 month' - interval '1 day', interval '1 day') AS g(day)
          LEFT JOIN (SELECT day, sum(cost_cents) AS cost_cents FROM totals GROUP BY day) d ON d.day = g.day::date) AS by_day,
       (SELECT coalesce(jsonb_agg(x), '[]'::jsonb) FROM (${forecastSql('$1', `(${MONTH_START})`)}) x) AS forecast`,
    [companyId, month ? `${month}-01` : null],
  ))!
  return {
    month: sums.month,
    total_cents: sums.total_cents,
    budget_cents: sums.budget,
    by_agent: sums.by_agent,
    by_project: sums.by_project,
    by_day: sums.by_day,
    forecast: project(sums.forecast, `${sums.month}-01`, new Date()),
  }
}
