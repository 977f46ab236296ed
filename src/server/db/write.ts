import { deliveriesQueued, enqueueDeliveries } from '../../domain/webhooks/outbox.ts'
import { webhookPresence } from '../../domain/webhooks/presence.ts'
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

type Pending = Map<string, [string, CompanyEvent]>

/** Keyed by content: a write that touches one entity several times (an agent whose runs are all cancelled) signals it once. */
function collector(pending: Pending) {
  return (companyId: string, event: CompanyEvent) => void pending.set(companyId + JSON.stringify(event), [companyId, event])
}

/**
 * The one way to change company data: runs fn in a transaction and, after COMMIT, publishes
 * the events fn queued, each distinct event once. A rolled-back write publishes nothing.
 * Just before COMMIT, the events become webhook deliveries of the companies that subscribe
 * (webhooks/outbox.ts), in the same transaction, so a crash after COMMIT loses none.
 */
export async function write<T>(ctx: Pick<AppContext, 'db' | 'bus'>, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const pending: Pending = new Map()
  let queued = 0
  const result = await ctx.db.transaction(async (q) => {
    const finishing = new Map<string, () => Promise<void>>()
    const tx: Tx = {
      ...q,
      publish: collector(pending),
      beforeCommit: (key, run) => void (finishing.has(key) || finishing.set(key, run)),
    }
    const value = await fn(tx)
    for (const run of finishing.values()) await run()
    for (const [companyId, events] of byCompany(pending)) queued += await enqueueDeliveries(ctx.db, q, companyId, events)
    return value
  })
  for (const [companyId, event] of pending.values()) ctx.bus.publish(companyId, event)
  if (queued > 0) deliveriesQueued(ctx.db)
  return result
}

/**
 * For the hot paths written as one statement without BEGIN/COMMIT (task create, claim,
 * reports): fn runs straight on the pool when the company is known to have no webhook
 * subscription, the common case, and inside write() otherwise, so that its deliveries are
 * inserted in the same transaction as the change. fn must be a single statement (atomic on
 * its own) and must not use beforeCommit.
 */
export async function writeHot<T>(ctx: Pick<AppContext, 'db' | 'bus'>, companyId: string, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if (!webhookPresence(ctx.db).knownAbsent(companyId)) return write(ctx, fn)
  const pending: Pending = new Map()
  const { db } = ctx
  const tx: Tx = {
    query: (sql, params) => db.query(sql, params),
    one: (sql, params) => db.one(sql, params),
    many: (sql, params) => db.many(sql, params),
    exec: (sql) => db.exec(sql),
    publish: collector(pending),
    beforeCommit: () => {
      throw new Error('writeHot: beforeCommit needs write()')
    },
  }
  const value = await fn(tx)
  for (const [companyId, event] of pending.values()) ctx.bus.publish(companyId, event)
  return value
}

function byCompany(pending: Pending): Map<string, CompanyEvent[]> {
  const out = new Map<string, CompanyEvent[]>()
  for (const [companyId, event] of pending.values()) {
    const list = out.get(companyId)
    if (list) list.push(event)
    else out.set(companyId, [event])
  }
  return out
}
