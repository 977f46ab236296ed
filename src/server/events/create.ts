import type { Logger } from 'pino'
import type { Config } from '../config.ts'
import { type EventBus, memoryBus } from './bus.ts'

/**
 * The event backend EVENTS_BACKEND names: in-process (default) or Redis publish/subscribe. The
 * Redis client is loaded only when asked for: it holds some 20 MB a server with the in-process
 * bus (the embedded default) has no use for.
 */
export async function createBus(config: Pick<Config, 'eventsBackend' | 'redisUrl'>, log: Logger): Promise<EventBus> {
  if (config.eventsBackend === 'redis') {
    const { redisBus } = await import('./redis-bus.ts')
    return redisBus(config.redisUrl, log)
  }
  return memoryBus((err) => log.error({ err }, 'event listener failed'))
}
