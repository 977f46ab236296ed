import type { Logger } from 'pino'
import type { EventBus } from './bus.ts'

/** Shared publish/subscribe on `sat:company:<company_id>:events` (see SPEC.md Events). */
export function redisBus(url: string, log: Logger): EventBus {
  void url
  void log
  throw new Error('EVENTS_BACKEND=redis is not available yet')
}
