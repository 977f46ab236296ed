import type { AppContext } from '../context.ts'
import type { CompanyEvent } from '../events/bus.ts'
import type { Queryable } from './db.ts'

/** A transaction that also collects live events, published only once it has committed. */
export interface Tx extends Queryable {
  publish(companyId: string, event: CompanyEvent): void
  /**
   * Runs `fn` in the transaction just before it commits, once per `key` however often it is
   * registered: work that is cheaper done once for the whole write (audit events, written in
   * one statement by audit/record.ts).
   */
  beforeCommit(key: string, fn: () => Promise<void>): void
}

/**
 * The one way to change company data: runs fn in a transaction and, after COMMIT, publishes
 * the events fn queued, each distinct event once. A rolled-back write publishes nothing.
 */
export async function write<T>(ctx: Pick<AppContext, 'db' | 'bus'>, fn: (tx: Tx) => Promise<T>): Promise<T> {
  // Keyed by content: a write that touches one entity several times (an agent whose runs are
  // all cancelled) signals it once.
  const pending = new Map<string, [string, CompanyEvent]>()
  const result = await ctx.db.transaction(async (q) => {
    // The database may run this again after a deadlock (postgres.ts): only the last attempt's events count.
    pending.clear()
    const finishing = new Map<string, () => Promise<void>>()
    const tx: Tx = {
      ...q,
      publish: (companyId, event) => void pending.set(companyId + JSON.stringify(event), [companyId, event]),
      beforeCommit: (key, run) => void (finishing.has(key) || finishing.set(key, run)),
    }
    const value = await fn(tx)
    for (const run of finishing.values()) await run()
    return value
  })
  for (const [companyId, event] of pending.values()) ctx.bus.publish(companyId, event)
  return result
}
