import { serve } from './main.ts'

/**
 * `shopfloor serve`: the API, plus the scheduler inside it unless SCHEDULER=off, the webhook
 * delivery worker (any number of instances share the deliveries safely), and on the embedded
 * database the upkeep autovacuum does for a PostgreSQL server.
 */
export async function serveWithScheduler(): Promise<void> {
  const { startScheduler } = await import('../scheduler/scheduler.ts')
  const { startDeliveryWorker } = await import('../domain/webhooks/worker.ts')
  const { startUpkeep } = await import('../server/db/upkeep.ts')
  await serve([
    async (ctx) => (ctx.config.scheduler ? startScheduler(ctx) : { stop: async () => {} }),
    async (ctx) => startDeliveryWorker(ctx),
    async (ctx) => startUpkeep(ctx.db, ctx.log),
  ])
}
