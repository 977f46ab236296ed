import { Cron } from 'croner'

/** Never let a duplicate window exceed this (SPEC.md: "ran within 50 seconds"). */
const MAX_DUPLICATE_WINDOW_MS = 50_000

/**
 * A parsed cron expression: 5 fields, or 6 with seconds, read in UTC so that every scheduler
 * instance, whatever its local time zone, agrees on the slots.
 */
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

/** Parses a cron expression; throws with croner's message when it is not valid. */
export function parseSchedule(expression: string): Schedule {
  const trimmed = expression.trim()
  const fields = trimmed.split(/\s+/).length
  if (fields !== 5 && fields !== 6) throw new Error(`expected 5 or 6 fields, got ${fields}`)
  const cron = new Cron(trimmed, { timezone: 'UTC', mode: '5-or-6-parts', paused: true })
  return {
    expression: trimmed,
    nextSlot: (from) => cron.nextRun(from),
    duplicateWindowMs(slot) {
      const gaps = [cron.nextRun(slot), cron.previousRuns(1, slot)[0]]
        .filter((d): d is Date => d instanceof Date)
        .map((d) => Math.abs(d.getTime() - slot.getTime()))
      return Math.min(MAX_DUPLICATE_WINDOW_MS, ...gaps.map((gap) => gap / 2))
    },
  }
}
