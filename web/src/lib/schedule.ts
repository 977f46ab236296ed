// When a routine fires next, read from its cron as the scheduler reads it (contract/schedule.ts).
import { cronSchedule } from '#src/contract/schedule.ts'

/** The next slot after `from` (null: the expression never fires again), or why it is not a schedule. */
export function nextFire(cron: string, from = new Date()): { at: string | null } | { error: string } {
  try {
    return { at: cronSchedule(cron).nextRun(from)?.toISOString() ?? null }
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) }
  }
}
