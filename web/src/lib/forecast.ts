// The month-end forecast the API answers on costs and the dashboard (API-DECISIONS.md "Spend
// control"), put into words: when an agent reaches its budget, if it does.
import type { Formatter } from './format.ts'

/** The current UTC month, YYYY-MM (the month the API's spend figures count in). */
export const thisMonth = (now = new Date()) => now.toISOString().slice(0, 7)

/**
 * "reached its budget on Nov 12", "reaches its budget around Nov 28 at this pace", "does not
 * reach its budget this month at this pace"; for a month that is over, without the pace.
 * `reachedOn` is the API's `budget_reached_on` (a UTC day or null).
 */
export function budgetReachedText(format: Formatter, budgetCents: number, reachedOn: string | null, month: string, now = new Date()): string {
  if (budgetCents <= 0) return 'no budget to reach'
  const today = now.toISOString().slice(0, 10)
  const over = month < thisMonth(now)
  if (reachedOn === null) return over ? 'did not reach its budget' : 'does not reach its budget this month at this pace'
  if (reachedOn <= today) return `reached its budget on ${format.day(reachedOn)}`
  return `reaches its budget around ${format.day(reachedOn)} at this pace`
}
