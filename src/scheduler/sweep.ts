import type { AppContext } from '../server/context.ts'

/** Fails stale running runs in every company (pending the runs service). */
export async function sweepStaleRuns(ctx: AppContext): Promise<string[]> {
  void ctx
  return []
}
