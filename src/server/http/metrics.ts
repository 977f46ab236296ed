import { timingSafeEqual } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../context.ts'
import { AppError } from '../errors.ts'
import { streamsOf } from '../events/routes.ts'
import {
  dbPool, eventStreams, httpDuration, httpRequests, oldestQueuedRun, pendingDeliveries, publishFailures, registry, runsGauge,
} from '../metrics.ts'

/** Gauges read from the database at scrape time: cheap reads of partial indexes only. */
const DATABASE_GAUGES = `
  SELECT (SELECT count(*) FROM runs WHERE status = 'queued')::int AS queued,
         (SELECT count(*) FROM runs WHERE status = 'running')::int AS running,
         (SELECT extract(epoch FROM now() - min(created_at)) FROM runs WHERE status = 'queued')::float8 AS oldest_queued,
         (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')::int AS pending_deliveries`

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * Request metrics for every answer (labelled by route template, never the raw path, so ids do
 * not explode the series) and `GET /metrics` in the Prometheus text format: public unless
 * METRICS_TOKEN is set, then only with that bearer.
 */
export async function metricsRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  let reportedFailures = 0
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched'
    const started = (request as any).startedAt as bigint | undefined
    httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) })
    if (started !== undefined) httpDuration.observe({ method: request.method, route }, Number(process.hrtime.bigint() - started) / 1e9)
  })

  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    const token = ctx.config.metricsToken
    // In production the figures are not public unless the operator says so.
    if (!token && ctx.config.production && !ctx.config.metricsPublic) {
      throw new AppError('AUTH_REQUIRED', 'Metrics in production need METRICS_TOKEN (or METRICS_PUBLIC=true)')
    }
    if (token) {
      const header = request.headers.authorization ?? ''
      if (!header.startsWith('Bearer ') || !sameSecret(header.slice(7).trim(), token)) {
        throw new AppError('AUTH_REQUIRED', 'Metrics need the bearer METRICS_TOKEN')
      }
    }
    eventStreams.set(streamsOf(ctx).size)
    // The bus counts its failures itself; the counter follows it.
    const failures = ctx.bus.stats().publishFailures
    if (failures > reportedFailures) publishFailures.inc(failures - reportedFailures)
    reportedFailures = Math.max(reportedFailures, failures)
    const pool = ctx.db.poolStats?.()
    if (pool) {
      dbPool.set({ state: 'in_use' }, pool.total - pool.idle)
      dbPool.set({ state: 'idle' }, pool.idle)
      dbPool.set({ state: 'waiting' }, pool.waiting)
    }
    if (ctx.dbState === 'ready') {
      const row = await ctx.db.one<{ queued: number; running: number; oldest_queued: number | null; pending_deliveries: number }>(DATABASE_GAUGES)
      runsGauge.set({ status: 'queued' }, row!.queued)
      runsGauge.set({ status: 'running' }, row!.running)
      oldestQueuedRun.set(Math.max(0, row!.oldest_queued ?? 0))
      pendingDeliveries.set(row!.pending_deliveries)
    }
    return reply.header('content-type', registry.contentType).send(await registry.metrics())
  })
}
