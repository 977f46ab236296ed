import type { AppContext } from '../context.ts'
import type { CompanyEvent } from '../events/bus.ts'
import type { Queryable } from './db.ts'

/** A transaction that also collects live events, published only once it has committed. */
export interface Tx extends Queryable {
  publish(companyId: string, event: CompanyEvent): void
}

/**
 * The one way to change company data: runs fn in a transaction and, after COMMIT, publishes
 * the events fn queued, each distinct event once. A rolled-back write publishes nothing.
 */
export async function write<T>(ctx: Pick<AppContext, 'db' | 'bus'>, fn: (tx: Tx) => Promise<T>): Promise<T> {
  // Keyed by content: a write that touches one entity several times (an agent whose runs are
  // all cancelled) signals it once.
  const pending = new Map<string, [string, CompanyEvent]>()
  const result = await ctx.db.transaction((q) =>
    fn({ ...q, publish: (companyId, event) => void pending.set(companyId + JSON.stringify(event), [companyId, event]) }),
  )
  for (const [companyId, event] of pending.values()) ctx.bus.publish(companyId, event)
  return result
}
