import type { FastifyInstance } from 'fastify'
import { buildApp } from './app.ts'
import { ConfigError, loadConfig } from '../server/config.ts'
import type { AppContext } from '../server/context.ts'
import { backgroundStdout, createLogger } from '../server/logger.ts'
import { createContext } from '../server/start.ts'

export interface Service {
  app: FastifyInstance
  ctx: AppContext
  stop(): Promise<void>
}

/** Hooks other parts of the process attach to (the in-process scheduler). */
export type ServiceExtension = (ctx: AppContext) => Promise<{ stop(): Promise<void> }>

/**
 * `shopfloor serve`: config, database, migrations, HTTP. The API listens even while the
 * database is unreachable or its migrations failed, so /health can say so.
 */
export async function serve(extensions: ServiceExtension[] = []): Promise<Service> {
  let config
  try {
    config = loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`shopfloor: configuration error: ${err.message}`)
      process.exit(2)
    }
    throw err
  }
  const stdout = backgroundStdout()
  const log = createLogger(config, stdout)
  let ctx: AppContext
  try {
    ctx = await createContext(config, log, { waitForMigrations: false })
  } catch (err: any) {
    log.fatal({ err: err.message }, 'could not open the database')
    console.error(`shopfloor: ${err.message}`)
    process.exit(1)
  }
  const app = await buildApp(ctx)
  await app.listen({ host: config.host, port: config.port })
  const stoppers = await Promise.all(extensions.map((start) => start(ctx)))

  let stopping: Promise<void> | null = null
  const stop = () =>
    (stopping ??= (async () => {
      log.info('shutting down: no new connections, finishing requests in flight')
      for (const s of stoppers) await s.stop().catch((err) => log.error({ err }, 'stop failed'))
      // A keep-alive connection whose request finishes during shutdown turns idle afterwards;
      // close such connections as they go idle, or close() would wait out the keep-alive timeout.
      const closeIdle = setInterval(() => app.server.closeIdleConnections(), 100)
      await app.close() // ends streams (their preClose hook) and waits for requests in flight
      clearInterval(closeIdle)
      await ctx.bus.close()
      await ctx.db.close()
      log.info('stopped')
    })())

  // The lines logged reach stdout before the process ends (it is written in the background).
  const exit = (code: number) => (stdout ? stdout.flush(() => process.exit(code)) : process.exit(code))
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      // Shutdown has a deadline: requests that never finish, a stream or a database that does not
      // close, or a stdout nobody reads must not keep the process alive.
      setTimeout(() => {
        log.error({ seconds: config.shutdownTimeoutSeconds }, 'shutdown did not finish in time (SHUTDOWN_TIMEOUT_SECONDS); exiting')
        process.exit(1)
      }, config.shutdownTimeoutSeconds * 1000)
      stop().then(
        () => exit(0),
        (err) => {
          log.error({ err }, 'shutdown failed')
          exit(1)
        },
      )
    })
  }
  return { app, ctx, stop }
}
