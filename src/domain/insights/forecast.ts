/**
 * The month-end forecast on costs and the dashboard (API-DECISIONS.md "Spend control";
 * docs/runs.md "Forecast"). The method is plain and linear: spend so far in the month divided
 * by the elapsed fraction of the month (at least one day counts as elapsed, so that the first
 * hours of a month do not project wild figures). A past month is its total; a future one 0.
 * An agent with a budget reaches it on the UTC date its cumulative spend first reached it, if
 * it has; otherwise on the day the same pace would reach it, or never (null) when that falls
 * after the month's end.
 */
export const FORECAST_METHOD =
  'linear: month-to-date spend / elapsed fraction of the UTC month (at least one day elapsed); budget_reached_on is the day the spend reached the budget, or would at that pace within the month'

const DAY_MS = 86_400_000

/**
 * One row per agent with spend this month or a budget, read from the month's rows of run_totals
 * (a few per agent and day, kept by triggers), whatever the number of runs. `company` and
 * `monthStart` are SQL for the company and the month's first day (placeholders or an
 * expression), so that the dashboard and costs read it as a part of their own statement;
 * `spend` is a relation (agent_id, cost_cents) of the month's spend per agent when the
 * statement has one already (costs does), otherwise it is summed here. Only an agent with a
 * budget needs its days (the date its cumulative spend reached it): the others' are not read.
 */
export function forecastSql(company: string, monthStart: string, spend?: string): string {
  const inMonth = `day >= ${monthStart}::date AND day < (${monthStart}::date + interval '1 month')`
  return `
  WITH spend AS (${spend ?? `SELECT agent_id, sum(cost_cents) AS cost_cents FROM run_totals WHERE company_id = ${company} AND ${inMonth} GROUP BY agent_id`}),
  running AS (
    SELECT agent_id, day, sum(sum(cost_cents)) OVER (PARTITION BY agent_id ORDER BY day) AS total FROM run_totals
     WHERE company_id = ${company} AND ${inMonth} GROUP BY agent_id, day)
  -- An agent's days are read (by run_totals_agent) only when it has a budget.
  SELECT a.id AS agent_id, a.monthly_budget_cents AS budget, coalesce(s.cost_cents, 0)::bigint AS spend,
         (SELECT to_char(min(r.day), 'YYYY-MM-DD') FROM running r
           WHERE a.monthly_budget_cents > 0 AND r.agent_id = a.id AND r.total >= a.monthly_budget_cents) AS reached_on
    FROM agents a LEFT JOIN spend s ON s.agent_id = a.id
   WHERE a.company_id = ${company} AND (s.cost_cents > 0 OR (a.monthly_budget_cents > 0 AND a.status <> 'terminated'))`
}

/** A row of forecastSql; bigints come as text from the driver, as numbers from JSON. */
export interface ForecastRow {
  agent_id: string
  budget: number | string
  spend: number | string
  reached_on: string | null
}

export interface Forecast {
  month_end_cents: number
  by_agent: Array<{ agent_id: string; month_end_cents: number; budget_reached_on: string | null }>
  method: string
}

/** The forecast from forecastSql's rows for the month starting `monthStart`, at `now`. */
export function project(rows: ForecastRow[], monthStart: string, now: Date): Forecast {
  const start = Date.parse(`${monthStart}T00:00:00Z`)
  const startDate = new Date(start)
  const end = Date.UTC(startDate.getUTCFullYear(), startDate.getUTCMonth() + 1, 1)
  const elapsed = Math.min(end - start, Math.max(DAY_MS, now.getTime() - start))
  const fraction = now.getTime() < start ? 0 : elapsed / (end - start)
  const atMonthEnd = (spend: number) => (fraction === 0 ? 0 : Math.round(spend / fraction))

  const byAgent = rows.map((row) => {
    const spend = Number(row.spend)
    const budget = Number(row.budget)
    let reached = row.reached_on
    if (!reached && budget > 0 && spend > 0 && fraction > 0) {
      // At `spend / elapsed` cents per millisecond, the budget is reached this long after the start.
      const at = start + (budget * elapsed) / spend
      if (at < end) reached = new Date(at).toISOString().slice(0, 10)
    }
    return { agent_id: row.agent_id, month_end_cents: atMonthEnd(spend), budget_reached_on: reached ?? null }
  })
  byAgent.sort((a, b) => b.month_end_cents - a.month_end_cents || a.agent_id.localeCompare(b.agent_id))
  const total = rows.reduce((sum, row) => sum + Number(row.spend), 0)
  return { month_end_cents: atMonthEnd(total), by_agent: byAgent, method: FORECAST_METHOD }
}
