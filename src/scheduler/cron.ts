import { cronSchedule } from '../contract/schedule.ts'

/** Never let a duplicate window exceed this (SPEC.md: "ran within 50 seconds"). */
const MAX_DUPLICATE_WINDOW_MS = 50_000

/** A parsed cron expression, with what the scheduler asks of it. */
export interface Schedule {
  expression: string
  /** The first slot strictly after `from`, or null when the expression never fires again. */
  nextSlot(from: Date): Date | null
  /**
   * How close to `slot` an earlier run makes this slot a duplicate: 50 seconds, or half the
   * gap to the neighbouring slots when that is shorter (an every-10-seconds routine must not
   * swallow its own next slot).
   */
  duplicateWindowMs(slot: Date): number
}

/** Parses a cron expression (contract/schedule.ts); throws with croner's message when it is not valid. */
export function parseSchedule(expression: string): Schedule {
  const cron = cronSchedule(expression)
  return {
    expression: expression.trim(),
    nextSlot: (from) => cron.nextRun(from),
    duplicateWindowMs(slot) {
      const gaps = [cron.nextRun(slot), cron.previousRuns(1, slot)[0]]
        .filter((d): d is Date => d instanceof Date)
        .map((d) => Math.abs(d.getTime() - slot.getTime()))
      return Math.min(MAX_DUPLICATE_WINDOW_MS, ...gaps.map((gap) => gap / 2))
    },
  }
}
