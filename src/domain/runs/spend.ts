// Month-to-date spend: the sum of the costs of an agent's runs created since the start of the
// current UTC month (the database session runs in UTC). The budget check after a run finishes,
// the agent records and the dashboard all use this one definition.

/** SQL expression: the start of the current UTC month. */
export const MONTH_START_SQL = `date_trunc('month', now())`

/**
 * Month-to-date spend of the agent whose id is the SQL expression `agentId` (a parameter such
 * as `$1`, or a column of an outer query): the agent's rows of run_totals since the month began
 * (a few per day, kept by triggers: runs_totals_follow()), whatever number of runs they add up.
 */
export function agentSpendMtdSql(agentId: string): string {
  return `
  SELECT coalesce(sum(cost_cents), 0) AS spend_mtd_cents
    FROM run_totals
   WHERE agent_id = ${agentId} AND day >= ${MONTH_START_SQL}::date`
}

/** Month-to-date spend of one agent ($1 = agent id). */
export const AGENT_SPEND_MTD_SQL = agentSpendMtdSql('$1')
