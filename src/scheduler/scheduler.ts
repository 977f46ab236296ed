import type { AppContext } from '../server/context.ts'

/** Routine crons, agent heartbeat wakes and the stale-run sweep. */
export async function startScheduler(ctx: AppContext): Promise<{ stop(): Promise<void> }> {
  void ctx
  return { stop: async () => {} }
}
