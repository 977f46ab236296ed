import { serve } from './main.ts'

/**
 * `shopfloor serve`: the API, plus the scheduler inside it unless SCHEDULER=off, and the webhook
 * delivery worker (any number of instances share the deliveries safely).
 */
export async function serveWithScheduler(): Promise<void> {
  const { startScheduler } = await import('../scheduler/scheduler.ts')
  const { startDeliveryWorker } = await import('../domain/webhooks/worker.ts')
  await serve([
    async (ctx) => (ctx.config.scheduler ? startScheduler(ctx) : { stop: async () => {} }),
    async (ctx) => startDeliveryWorker(ctx),
  ])
}
