// Spend control in the web app (API-DECISIONS.md "Agent settings beyond the spec", "Spend
// control"): what a hire proposes, counts typed by people, and the month-end forecast in words.
import type { Formatter } from './format.ts'

/** What a new hire starts with: a runaway breaker and both idle-spend savers on. */
export const HIRE_DEFAULTS = { max_runs_per_hour: 20, pause_on_repeat: true, heartbeat_skip_idle: true } as const

/** The largest count the server stores. */
export const MAX_COUNT = 2_147_483_647

/** A whole number of 0 or more typed by a person (blank = 0); null when it is not one the server takes. */
export function parseCount(text: string): number | null {
  const trimmed = text.trim()
  if (trimmed === '') return 0
  if (!/^\d+$/.test(trimmed)) return null
  const n = Number(trimmed)
  return n <= MAX_COUNT ? n : null
}

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
