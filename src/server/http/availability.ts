import type { FastifyInstance } from 'fastify'
import type { AppContext, DbState } from '../context.ts'
import { AppError } from '../errors.ts'

/** How long an API request waits for the start-up migrations before it is answered 503. */
export const START_WAIT_MS = 5_000

/** Paths that reach the database: everything under /api/ (/health reports for itself). */
const needsDatabase = (url: string) => url.startsWith('/api/')

export const starting = () => new AppError('SERVICE_UNAVAILABLE', 'The service is starting: its database is not ready yet; try again shortly')
export const shuttingDown = () => new AppError('SERVICE_UNAVAILABLE', 'The service is shutting down; try again shortly')
export const initialisationFailed = () => new AppError('SERVICE_UNAVAILABLE', 'The service could not initialise its database')

/**
 * Requests the service cannot serve yet or any more, answered 503 SERVICE_UNAVAILABLE in the
 * envelope before they reach a table:
 *  - while the start-up migrations run, an API request waits for them (up to START_WAIT_MS),
 *    so no request meets a table that is not there yet;
 *  - once the migrations failed for good, every API request;
 *  - once shutdown began, every request (Fastify's own 503 would be outside the envelope).
 */
export function installAvailability(app: FastifyInstance, ctx: AppContext): void {
  let closing = false
  // Read afresh each time: the migrations move it while a request waits.
  const state = (): DbState => ctx.dbState
  app.addHook('preClose', async () => {
    closing = true
  })
  app.addHook('onRequest', async (request, reply) => {
    if (closing) {
      reply.header('Connection', 'close')
      throw shuttingDown()
    }
    if (ctx.dbState === 'ready' || !needsDatabase(request.url)) return
    const deadline = Date.now() + START_WAIT_MS
    while (state() === 'starting' && Date.now() < deadline && !closing) await new Promise((r) => setTimeout(r, 50))
    if (closing) throw shuttingDown()
    if (state() === 'failed') throw initialisationFailed()
    if (state() !== 'ready') throw starting()
  })
}
