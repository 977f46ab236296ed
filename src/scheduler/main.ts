// `shopfloor scheduler`: the scheduler as its own process, for installations that run the API
// with SCHEDULER=off. It reads the same environment as the API (DATABASE_URL, EVENTS_BACKEND,
// STALE_SWEEP_SECONDS...). Any number may run beside the API instances on one PostgreSQL.
import { parseArgs } from 'node:util'
import { ConfigError, loadConfig } from '../server/config.ts'
import { createLogger } from '../server/logger.ts'
import { createContext } from '../server/start.ts'
import { startScheduler } from './scheduler.ts'

const USAGE = `Usage: shopfloor scheduler [--refresh-seconds N]

Fires routines and agents' heartbeat_cron wakes, and fails stale runs (every STALE_SWEEP_SECONDS,
default 60), for every company in the database of DATABASE_URL (or DATA_DIR).

  --refresh-seconds N   re-read routines and agents every N seconds (default 300)
`

export async function runSchedulerProcess(args: string[]): Promise<void> {
  let values
  try {
    values = parseArgs({ args, options: { 'refresh-seconds': { type: 'string' }, help: { type: 'boolean', short: 'h' } } }).values
  } catch (err: any) {
    process.stderr.write(`shopfloor scheduler: ${err.message}\n\n${USAGE}`)
    process.exit(2)
  }
  if (values.help) {
    process.stdout.write(USAGE)
    return
  }
  const refreshSeconds = values['refresh-seconds'] === undefined ? 300 : Number(values['refresh-seconds'])
  if (!(refreshSeconds > 0)) {
    process.stderr.write('shopfloor scheduler: --refresh-seconds must be a positive number\n')
    process.exit(2)
  }

  let config
  try {
    config = loadConfig()
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    process.stderr.write(`shopfloor scheduler: configuration error: ${err.message}\n`)
    process.exit(2)
  }
  const log = createLogger(config)
  // The in-process event backend is this process's own: what the scheduler writes (tasks of
  // routines, runs it queues or expires) would reach no API instance's event stream.
  if (config.eventsBackend !== 'redis') {
    log.warn('EVENTS_BACKEND is memory: live events of this scheduler reach no API instance (set EVENTS_BACKEND=redis and REDIS_URL)')
  }
  const ctx = await createContext(config, log)
  if (ctx.dbState === 'failed') {
    process.stderr.write('shopfloor scheduler: the database could not be initialised (see the log)\n')
    process.exit(1)
  }
  const scheduler = await startScheduler(ctx, { refreshMs: refreshSeconds * 1000 })

  let stopping = false
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return
      stopping = true
      log.info({ signal }, 'scheduler stopping')
      void (async () => {
        await scheduler.stop()
        await ctx.bus.close()
        await ctx.db.close()
        process.exit(0)
      })()
    })
  }
  // The scheduler's timers do not hold the process open on their own; this does, until a signal.
  setInterval(() => {}, 1 << 30)
}
