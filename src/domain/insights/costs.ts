import type { Costs } from '../../contract/insights.ts'
import type { Db } from '../../server/db/db.ts'
import { AppError, invalidField } from '../../server/errors.ts'
import { type ForecastRow, forecastSql, project } from './forecast.ts'

/** `YYYY-MM`; a value of another shape is a 422 from the route schema. */
export { MONTH_PATTERN } from '../../contract/insights.ts'

/**
 * The month's first day. The month's rows are read with it written out, not taken from `m`:
 * bounds that come from another part of the statement are no index condition, and in a company
 * the statistics believe empty the plan then read the company's whole history of totals.
 */
const MONTH_START = `coalesce($2::date, date_trunc('month', current_date)::date)`

/** GROUPING(agent_id, project_id, day) of each kind of sum: a bit for each column it is not by (4 agent, 2 project, 1 day). */
const BY_AGENT = 0b011
const BY_PROJECT = 0b101
const BY_DAY = 0b110
const ALL = 0b111

/**
 * Spend of one UTC month (API-DECISIONS.md "Costs"): the total, the company budget, and the
 * breakdown by agent, by project (through the run's task) and by day, every day of the month
 * listed; lists ordered by cost. A run counts in the month it was created, as for month-to-date
 * spend, and for the project its task is in now. Each cost but a project's says which part of it is
 * plan-equivalent (`plan_cents`: runs billed on a subscription plan), the rest being API spend. One statement over the month's rows of
 * run_totals (a few per agent and day, kept by triggers: runs_totals_follow()), the month-end
 * forecast's rows included.
 * `month` null means the current month; a month outside 01-12 is INVALID_MONTH, the year 0000
 * a validation error of `month`.
 */
export async function costs(db: Db, companyId: string, month: string | null): Promise<Costs> {
  if (month !== null) {
    const m = Number(month.slice(5))
    if (m < 1 || m > 12) throw new AppError('INVALID_MONTH', 'Month must be between 01 and 12')
    // There was no year 0 (1 BC is followed by AD 1), and PostgreSQL has no date in it.
    if (Number(month.slice(0, 4)) < 1) throw invalidField('query', 'month', 'Year must be 0001 or later', month)
  }
  const sums = (await db.one<{ month: string; budget: number; total_cents: number; plan_cents: number; by_agent: Costs['by_agent']; by_project: Costs['by_project']; by_day: Costs['by_day']; forecast: ForecastRow[] }>(
    `WITH m AS (SELECT ${MONTH_START} AS start),
     -- The month's rows summed once by agent, by project, by day and in all (GROUPING tells
     -- which: a bit set for each column not grouped by), instead of a pass over them for each.
     sums AS MATERIALIZED (
       SELECT GROUPING(agent_id, project_id, day) AS grouped, agent_id, project_id, day, sum(cost_cents) AS cost_cents,
              sum(plan_cost_cents) AS plan_cents,
              sum(tokens_in) AS tokens_in, sum(tokens_out) AS tokens_out, sum(runs)::int AS runs
         FROM run_totals
        WHERE company_id = $1 AND day >= ${MONTH_START} AND day < (${MONTH_START} + interval '1 month')::date
        GROUP BY GROUPING SETS ((agent_id), (project_id), (day), ()))
     SELECT
       (SELECT to_char(start, 'YYYY-MM') FROM m) AS month,
       (SELECT monthly_budget_cents FROM companies WHERE id = $1) AS budget,
       (SELECT coalesce(cost_cents, 0) FROM sums WHERE grouped = ${ALL}) AS total_cents,
       (SELECT coalesce(plan_cents, 0) FROM sums WHERE grouped = ${ALL}) AS plan_cents,
       (SELECT coalesce(jsonb_agg(x ORDER BY x.cost_cents DESC, x.name, x.agent_id), '[]'::jsonb)
          FROM (SELECT s.agent_id, a.name, s.cost_cents, s.plan_cents, s.tokens_in, s.tokens_out, s.runs
                  FROM sums s JOIN agents a ON a.id = s.agent_id WHERE s.grouped = ${BY_AGENT} AND s.runs > 0) x) AS by_agent,
       (SELECT coalesce(jsonb_agg(x ORDER BY x.cost_cents DESC, x.name, x.project_id), '[]'::jsonb)
          FROM (SELECT s.project_id, p.name, s.cost_cents
                  FROM sums s JOIN projects p ON p.id = s.project_id WHERE s.grouped = ${BY_PROJECT} AND s.runs > 0) x) AS by_project,
       (SELECT jsonb_agg(jsonb_build_object('date', to_char(g.day, 'YYYY-MM-DD'), 'cost_cents', coalesce(d.cost_cents, 0), 'plan_cents', coalesce(d.plan_cents, 0)) ORDER BY g.day)
          FROM m, generate_series(m.start, m.start + interval '1 month' - interval '1 day', interval '1 day') AS g(day)
          LEFT JOIN sums d ON d.grouped = ${BY_DAY} AND d.day = g.day::date) AS by_day,
       (SELECT coalesce(jsonb_agg(x), '[]'::jsonb)
          FROM (${forecastSql('$1', `(${MONTH_START})`, `SELECT agent_id, cost_cents FROM sums WHERE grouped = ${BY_AGENT}`)}) x) AS forecast`,
    [companyId, month ? `${month}-01` : null],
  ))!
  return {
    month: sums.month,
    total_cents: sums.total_cents,
    plan_cents: sums.plan_cents,
    budget_cents: sums.budget,
    by_agent: sums.by_agent,
    by_project: sums.by_project,
    by_day: sums.by_day,
    forecast: project(sums.forecast, `${sums.month}-01`, new Date()),
  }
}
