// Schedules as people say them ("At 08:00, only on Monday"), by cronstrue; the cron itself stays
// on hover. A cron cronstrue cannot read is shown as typed (the page says separately whether
// the scheduler can read it).
import cronstrue from 'cronstrue'

export function cronInWords(cron: string): string {
  try {
    return cronstrue.toString(cron, { use24HourTimeFormat: true, verbose: false })
  } catch {
    return cron
  }
}
