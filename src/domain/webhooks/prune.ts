import type { Queryable } from '../../server/db/db.ts'

/** How long the delivery log keeps delivered and failed deliveries. */
export const DELIVERY_LOG_DAYS = 30
const BATCH = 500

/**
 * Removes delivered and failed deliveries older than DELIVERY_LOG_DAYS, a batch per statement,
 * so the outbox does not grow without end. Pending ones are never removed. Answers how many.
 */
export async function pruneDeliveries(q: Queryable, shouldStop: () => boolean = () => false): Promise<number> {
  let total = 0
  for (;;) {
    const { rowCount } = await q.query(
      `DELETE FROM webhook_deliveries WHERE id IN (
         SELECT id FROM webhook_deliveries
          WHERE status <> 'pending' AND created_at < now() - make_interval(days => $1)
          LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [DELIVERY_LOG_DAYS, BATCH],
    )
    total += rowCount
    if (rowCount < BATCH || shouldStop()) return total
    await new Promise((r) => setTimeout(r, 100))
  }
}
