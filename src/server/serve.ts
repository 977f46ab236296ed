import { serve } from './main.ts'

/** `shopfloor serve`: the API, plus the scheduler inside it unless SCHEDULER=off. */
export async function serveWithScheduler(): Promise<void> {
  const { startScheduler } = await import('../scheduler/scheduler.ts')
  await serve([
    async (ctx) => (ctx.config.scheduler ? startScheduler(ctx) : { stop: async () => {} }),
  ])
}
