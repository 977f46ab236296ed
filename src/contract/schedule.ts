// How a routine's or an agent's heartbeat cron is read, shared by the scheduler, the web app and
// the CLI (which show when a schedule fires next). A file of its own, without schemas, so that
// the web app's bundle takes the rule and not the schema library.
import { Cron } from 'croner'

/**
 * A cron expression as the reference scheduler reads it (SPEC.md "Routine"): 5 fields, or 6
 * with seconds, in UTC so that every scheduler instance, whatever its local time zone, agrees
 * on the slots. Throws, with croner's message, when it is not valid; the API stores any text.
 */
export function cronSchedule(expression: string): Cron {
  const trimmed = expression.trim()
  const fields = trimmed.split(/\s+/).length
  if (fields !== 5 && fields !== 6) throw new Error(`expected 5 or 6 fields, got ${fields}`)
  return new Cron(trimmed, { timezone: 'UTC', mode: '5-or-6-parts', paused: true })
}

/** The next slot after `from` (null: the expression never fires again), or why it is not a schedule. */
export function nextFire(cron: string, from = new Date()): { at: string | null } | { error: string } {
  try {
    return { at: cronSchedule(cron).nextRun(from)?.toISOString() ?? null }
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) }
  }
}

/**
 * The shortest time between two slots among the next `count` after `from`, in seconds (null: it
 * fires fewer than twice more). How often a schedule fires at most, for the rules that bound it.
 */
export function shortestGapSeconds(expression: string, from = new Date(), count = 100): number | null {
  const runs = cronSchedule(expression).nextRuns(count, from)
  let shortest: number | null = null
  for (let i = 1; i < runs.length; i++) {
    const gap = (runs[i].getTime() - runs[i - 1].getTime()) / 1000
    if (shortest === null || gap < shortest) shortest = gap
  }
  return shortest
}
