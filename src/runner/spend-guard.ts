// Spend limits enforced mid-run (API-DECISIONS.md "Spend control"). The server checks an
// agent's budget only when a run finishes, so the runner stops a run at the usage update where
// its running cost reaches either
//   - what is left of the agent's monthly budget (budget - month-to-date spend at claim; an
//     agent has one running run at a time, so nothing else spends it meanwhile), or
//   - the agent's own cap per run, max_run_cost_cents.
// 0 means no limit for both. The run then ends `failed` with an error naming the figures and
// the cap; for the budget, the server's finish-time check pauses the agent and opens the
// `budget_override` approval as SPEC.md says. What a run can spend past a limit is therefore
// what one usage update adds.

export interface SpendLimits {
  /** The agent's monthly budget; 0 = none. */
  budgetCents: number
  /** Month-to-date spend of the agent when the run was claimed. */
  spentBeforeCents: number
  /** The agent's cap per run; 0 = none. */
  runCapCents: number
}

/** The limits of a claimed run, read from the claim context's agent. */
export function spendLimits(agent: { monthly_budget_cents?: number; spend_mtd_cents?: number; max_run_cost_cents?: number }): SpendLimits {
  return {
    budgetCents: agent.monthly_budget_cents ?? 0,
    spentBeforeCents: agent.spend_mtd_cents ?? 0,
    runCapCents: agent.max_run_cost_cents ?? 0,
  }
}

/**
 * Why a run that has cost `costCents` so far must stop, or null when it may go on. The budget
 * is named first: reaching it has the larger consequence (the agent is paused).
 */
export function spendStop(limits: SpendLimits, costCents: number): string | null {
  if (costCents <= 0) return null
  const { budgetCents, spentBeforeCents, runCapCents } = limits
  if (budgetCents > 0 && spentBeforeCents + costCents >= budgetCents) {
    return `stopped at the agent's monthly budget: this run cost ${costCents} cents, the agent had spent ` +
      `${spentBeforeCents} of its ${budgetCents}-cent budget before it (${spentBeforeCents + costCents} cents this month)`
  }
  if (runCapCents > 0 && costCents >= runCapCents) {
    return `stopped at the agent's cap per run (max_run_cost_cents): this run cost ${costCents} cents, the cap is ${runCapCents} cents`
  }
  return null
}
