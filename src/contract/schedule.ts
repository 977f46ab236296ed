// How a routine's or an agent's heartbeat cron is read, shared by the scheduler and the web app
// (which shows when a routine fires next). A file of its own, without schemas, so that the web
// app's bundle takes the rule and not the schema library.
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
