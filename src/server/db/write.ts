import type { AppContext } from '../context.ts'
import type { CompanyEvent } from '../events/bus.ts'
import type { Queryable } from './db.ts'

/** A transaction that also collects live events, published only once it has committed. */
export interface Tx extends Queryable {
  publish(companyId: string, event: CompanyEvent): void
}

/**
 * The one way to change company data: runs fn in a transaction and, after COMMIT, publishes
 * the events fn queued. A rolled-back write publishes nothing.
 */
export async function write<T>(ctx: Pick<AppContext, 'db' | 'bus'>, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const pending: [string, CompanyEvent][] = []
  const result = await ctx.db.transaction((q) =>
    fn({ ...q, publish: (companyId, event) => void pending.push([companyId, event]) }),
  )
  for (const [companyId, event] of pending) ctx.bus.publish(companyId, event)
  return result
}
