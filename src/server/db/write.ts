import type { AppContext } from '../context.ts'
import type { CompanyEvent } from '../events/bus.ts'
import type { Db, Queryable } from './db.ts'

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

/**
 * Turns a write's events into webhook deliveries inside its transaction (domain/webhooks/outbox.ts).
 * This layer stands below every resource, so the outbox is handed to it from above, by whatever
 * starts writing (src/api/app.ts, the scheduler); without one, writes queue no delivery.
 */
export interface Outbox {
  /** True only when the company is known to have no subscription: its writes skip the outbox. */
  knownAbsent(db: Db, companyId: string): boolean
  /** Inserts the deliveries of these events in the transaction `q`; answers how many. */
  enqueue(db: Db, q: Queryable, companyId: string, events: CompanyEvent[]): Promise<number>
  /** After COMMIT: wakes this process's delivery worker. */
  queued(db: Db): void
}

let outbox: Outbox | null = null

export function installOutbox(value: Outbox): void {
  outbox = value
}

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
    if (outbox) for (const [companyId, events] of byCompany(pending)) queued += await outbox.enqueue(ctx.db, q, companyId, events)
    return value
  })
  for (const [companyId, event] of pending.values()) ctx.bus.publish(companyId, event)
  if (queued > 0) outbox?.queued(ctx.db)
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
  if (outbox && !outbox.knownAbsent(ctx.db, companyId)) return write(ctx, fn)
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
