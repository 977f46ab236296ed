// The outbox: deliveries are inserted by the write that publishes the events, in its
// transaction, so an event committed is an event delivered, whatever crashes afterwards.
// Installed into db/write.ts (webhookOutbox below) and called for every write; companies known to have no subscription cost nothing.
import type { Db, Queryable } from '../../server/db/db.ts'
import type { Outbox } from '../../server/db/write.ts'
import type { CompanyEvent } from '../../server/events/bus.ts'
import { getAgent } from '../agents/read.ts'
import { getApproval } from '../approvals/read.ts'
import { getGoal } from '../goals/service.ts'
import { getProject } from '../projects/service.ts'
import { getRoutine } from '../routines/service.ts'
import { runColumns } from '../runs/model.ts'
import { findTask } from '../tasks/find.ts'
import { matches } from './event-types.ts'
import { webhookPresence } from './presence.ts'

type Loader = (q: Queryable, companyId: string, id: string) => Promise<unknown>

/** The record an event is about, as the API answers it (runs without their transcript). */
const LOADERS: Record<string, Loader> = {
  company: (q, companyId) =>
    q.one('SELECT id, name, mission, monthly_budget_cents, task_prefix, created_at FROM companies WHERE id = $1', [companyId]),
  agent: getAgent,
  task: (q, companyId, id) => findTask(q, companyId, id),
  goal: getGoal,
  project: (q, companyId, id) => getProject(q, companyId, id),
  routine: (q, companyId, id) => getRoutine(q, companyId, id),
  run: (q, companyId, id) => q.one(`SELECT ${runColumns()} FROM runs WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2`, [id, companyId]),
  approval: getApproval,
}

/** `data` of a payload: the changed record, `{id}` for a deletion or a record gone meanwhile. */
async function eventData(q: Queryable, companyId: string, event: CompanyEvent): Promise<unknown> {
  if (event.id === null) return null
  const [entity, verb] = event.type.split('.')
  const load = LOADERS[entity]
  if (verb === 'deleted' || !load) return { id: event.id }
  try {
    return (await load(q, companyId, event.id)) ?? { id: event.id }
  } catch {
    return { id: event.id } // not found: removed later in the same write
  }
}

const INSERT = `
  INSERT INTO webhook_deliveries (webhook_id, company_id, event_id, type, payload, next_attempt_at)
  SELECT d.webhook_id, $1, d.event_id, d.type,
         jsonb_build_object('id', d.event_id, 'type', d.type, 'company_id', $1::uuid, 'created_at', now(), 'data', d.data::jsonb),
         now()
    FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS d(webhook_id, event_id, type, data, n)
   ORDER BY d.n`

/**
 * Inserts one delivery per event and matching enabled subscription of the company; answers how
 * many. The subscriptions' lookup also teaches the process that a company has none.
 */
export async function enqueueDeliveries(db: Db, q: Queryable, companyId: string, events: CompanyEvent[]): Promise<number> {
  const presence = webhookPresence(db)
  if (presence.knownAbsent(companyId)) return 0
  const version = presence.version
  const subscriptions = await q.many<{ id: string; events: string[] }>(
    'SELECT id, events FROM webhooks WHERE company_id = $1 AND enabled ORDER BY created_at, id',
    [companyId],
  )
  if (subscriptions.length === 0) {
    presence.rememberAbsent(companyId, version)
    return 0
  }
  const webhookIds: string[] = []
  const eventIds: string[] = []
  const types: string[] = []
  const data: string[] = []
  for (const event of events) {
    const targets = subscriptions.filter((s) => matches(s.events, event.type))
    if (targets.length === 0) continue
    const eventId = `evt_${crypto.randomUUID().replaceAll('-', '')}`
    const record = await eventData(q, companyId, event)
    // A review's decision (task.updated with `review`, domain/work/review.ts) travels with the task.
    const json = JSON.stringify(event.review && record ? { ...(record as object), review: event.review } : record)
    for (const target of targets) {
      webhookIds.push(target.id)
      eventIds.push(eventId)
      types.push(event.type)
      data.push(json)
    }
  }
  if (webhookIds.length === 0) return 0
  await q.query(INSERT, [companyId, webhookIds, eventIds, types, data])
  return webhookIds.length
}

const wakers = new WeakMap<Db, Set<() => void>>()

/** The delivery worker of this process asks to be woken when a write queued deliveries. */
export function onDeliveriesQueued(db: Db, wake: () => void): () => void {
  let set = wakers.get(db)
  if (!set) wakers.set(db, (set = new Set()))
  set.add(wake)
  return () => set!.delete(wake)
}

export function deliveriesQueued(db: Db): void {
  for (const wake of wakers.get(db) ?? []) wake()
}

/** What db/write.ts calls for every write, once installed (src/api/app.ts, the scheduler). */
export const webhookOutbox: Outbox = {
  knownAbsent: (db, companyId) => webhookPresence(db).knownAbsent(companyId),
  enqueue: enqueueDeliveries,
  queued: deliveriesQueued,
}
