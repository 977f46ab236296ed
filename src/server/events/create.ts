import type { Logger } from 'pino'
import type { Config } from '../config.ts'
import { type EventBus, memoryBus } from './bus.ts'
import { redisBus } from './redis-bus.ts'

/** The event backend EVENTS_BACKEND names: in-process (default) or Redis publish/subscribe. */
export function createBus(config: Pick<Config, 'eventsBackend' | 'redisUrl'>, log: Logger): EventBus {
  if (config.eventsBackend === 'redis') return redisBus(config.redisUrl, log)
  return memoryBus((err) => log.error({ err }, 'event listener failed'))
}
