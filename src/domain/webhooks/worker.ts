// The delivery worker: runs inside every API process (like the scheduler) and sends the
// deliveries the outbox holds. Any number of instances may run it on one database: a delivery
// is taken with FOR UPDATE SKIP LOCKED and leased for the length of one attempt, so exactly
// one worker sends each attempt; a worker that dies mid-attempt leaves the row to be taken
// again once the lease is over (at least once, never lost).
import { Webhook } from 'standardwebhooks'
import type { Logger } from 'pino'
import type { AppContext } from '../../server/context.ts'
import { webhookDeliveries } from '../../server/metrics.ts'
import { onDeliveriesQueued } from './outbox.ts'
import { outboundFetch, refusedBecause } from '../../server/outbound.ts'
import { webhookGuard } from './targets.ts'

/** Seconds between a failed attempt and the next: about 5 s, 1 min, 5 min, 30 min, 2 h, then every 4 h. */
const RETRY_DELAYS = [5, 60, 300, 1800, 7200]
const LATER_DELAY = 4 * 3600
/** An attempt with no answer within this is a failure. */
export const ATTEMPT_TIMEOUT_MS = 15_000
/** How long a taken delivery is kept from other workers: one attempt and some margin. */
const LEASE_SECONDS = 30
/** A subscription whose deliveries have failed this long without a success is disabled. */
const DISABLE_AFTER = '3 days'

/** The delay before the next attempt once `attempts` attempts have failed. */
export function retryDelaySeconds(attempts: number): number {
  return RETRY_DELAYS[attempts - 1] ?? LATER_DELAY
}

interface Taken {
  id: string
  seq: number
  webhook_id: string
  event_id: string
  payload: string
  attempts: number
  url: string
  secret: string
}

/** Takes up to $1 due deliveries of enabled subscriptions and leases them for one attempt. */
const TAKE = `
  UPDATE webhook_deliveries d
     SET leased_until = now() + make_interval(secs => $2), next_attempt_at = now() + make_interval(secs => $2)
    FROM webhooks w
   WHERE w.id = d.webhook_id
     AND d.id IN (
       SELECT x.id FROM webhook_deliveries x JOIN webhooks y ON y.id = x.webhook_id AND y.enabled
        WHERE x.status = 'pending' AND x.next_attempt_at <= now()
        ORDER BY x.next_attempt_at, x.seq
        LIMIT $1
        FOR UPDATE OF x SKIP LOCKED)
  RETURNING d.id, d.seq, d.webhook_id, d.event_id, d.payload::text AS payload, d.attempts, w.url, w.secret`

/**
 * How long until the earliest pending delivery of an enabled subscription is due (negative when
 * one is due now, null when none is pending): the worker's next look after it ran out of work.
 */
const NEXT_DUE = `
  SELECT (extract(epoch FROM min(x.next_attempt_at) - now()) * 1000)::float8 AS ms
    FROM webhook_deliveries x JOIN webhooks y ON y.id = x.webhook_id AND y.enabled
   WHERE x.status = 'pending'`

/** Notified at the commit of every write that queued deliveries (migration 134), in any process. */
const DELIVERIES_CHANNEL = 'deliveries_queued'

/**
 * How often a worker looks for due deliveries nobody told it of, at least: deliveries left by a
 * process that stopped before sending them (their lease runs out) or whose notification was lost.
 * Everything else wakes it: this process's writes, every process's notifications, and the next
 * due delivery (a retry), which it asks for whenever it runs out of work. Looking every second
 * was half of an idle server's CPU and nearly all of its commits (docs/webhooks.md).
 */
const LOOK_EVERY_MS = 30_000
/**
 * A look again this much later when the last could not happen (the database not ready yet, as at
 * start) or left a due delivery behind (another worker held it).
 */
const SOON_MS = 1_000

/** Deliveries taken but not attempted, handed back for the next look. */
const RELEASE = 'UPDATE webhook_deliveries SET leased_until = NULL, next_attempt_at = now() WHERE id = ANY($1::uuid[])'

const DELIVERED = `
  WITH d AS (
    UPDATE webhook_deliveries SET status = 'delivered', delivered_at = now(), last_status_code = $2, last_error = NULL,
           leased_until = NULL, next_attempt_at = NULL, attempts = attempts + 1, last_attempt_at = $3
     WHERE id = $1 RETURNING webhook_id
  )
  UPDATE webhooks SET failing_since = NULL WHERE id = (SELECT webhook_id FROM d) AND failing_since IS NOT NULL`

/**
 * A failed attempt: tried again after its delay while that stays within 24 hours of the
 * delivery's window, else failed for good; the subscription notes since when it fails and is
 * disabled, saying why, once that is 3 days ago.
 */
const FAILED = `
  WITH d AS (
    UPDATE webhook_deliveries SET last_status_code = $2, last_error = $3, leased_until = NULL,
           attempts = attempts + 1, last_attempt_at = $5,
           status = CASE WHEN now() + make_interval(secs => $4) > retry_window_from + interval '24 hours' THEN 'failed' ELSE 'pending' END,
           next_attempt_at = CASE WHEN now() + make_interval(secs => $4) > retry_window_from + interval '24 hours' THEN NULL
                                  ELSE now() + make_interval(secs => $4) END
     WHERE id = $1 RETURNING webhook_id, status
  ), w AS (
    UPDATE webhooks SET failing_since = coalesce(failing_since, now()),
           enabled = CASE WHEN failing_since <= now() - interval '${DISABLE_AFTER}' THEN false ELSE enabled END,
           disabled_reason = CASE WHEN failing_since <= now() - interval '${DISABLE_AFTER}'
                                  THEN 'Disabled after 3 days of failed deliveries (last: ' || $3 || ')' ELSE disabled_reason END,
           updated_at = now()
     WHERE id = (SELECT webhook_id FROM d)
  )
  SELECT status FROM d`

export interface DeliveryWorkerOptions {
  /** How often to look for due deliveries at least, besides being woken: LOOK_EVERY_MS unless a test shortens it. */
  pollMs?: number
  /** Deliveries taken per look. */
  batch?: number
  /** How long an attempt waits for an answer: ATTEMPT_TIMEOUT_MS (15 s) unless a test shortens it. */
  attemptTimeoutMs?: number
}

export interface DeliveryWorker {
  stop(): Promise<void>
}

export function startDeliveryWorker(ctx: AppContext, options: DeliveryWorkerOptions = {}): DeliveryWorker {
  const pollMs = options.pollMs ?? LOOK_EVERY_MS
  const batch = options.batch ?? 50
  const timeoutMs = options.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS
  const log: Logger = ctx.log.child({ component: 'webhooks' })
  let stopped = false
  let running: Promise<void> | null = null
  let again = false

  async function attempt(d: Taken): Promise<void> {
    const startedAt = new Date().toISOString()
    let code: number | null = null
    let error: string | null = null
    try {
      const timestamp = new Date()
      const signature = new Webhook(d.secret).sign(d.event_id, timestamp, d.payload)
      // The target is checked on the connection this attempt makes (server/outbound.ts): a name
      // that resolved to a public address when it was saved may answer 127.0.0.1 now.
      const res = await outboundFetch(d.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Shopfloor-Webhooks',
          'webhook-id': d.event_id,
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': signature,
        },
        body: d.payload,
        signal: AbortSignal.timeout(timeoutMs),
      }, webhookGuard(ctx))
      code = res.status
      await res.body?.cancel().catch(() => {})
      if (code < 200 || code > 299) error = `HTTP ${code}`
    } catch (err: any) {
      error = err?.name === 'TimeoutError'
        ? `No answer within ${timeoutMs / 1000} s`
        : (refusedBecause(err)?.message ?? String(err?.cause?.code ?? err?.message ?? err))
    }
    if (error === null) {
      await ctx.db.query(DELIVERED, [d.id, code, startedAt])
      webhookDeliveries.inc({ outcome: 'delivered' })
      return
    }
    const attempts = d.attempts + 1
    const row = await ctx.db.one<{ status: string }>(FAILED, [d.id, code, error.slice(0, 500), retryDelaySeconds(attempts), startedAt])
    const outcome = row?.status === 'failed' ? 'failed' : 'retry'
    webhookDeliveries.inc({ outcome })
    log.info({ delivery_id: d.id, webhook_id: d.webhook_id, attempts, status_code: code, error, outcome }, 'webhook attempt failed')
  }

  /** Takes due deliveries until none is left; one subscription's in creation order, subscriptions side by side. */
  async function drain(): Promise<void> {
    for (;;) {
      if (stopped || ctx.dbState !== 'ready') return
      const takenAt = Date.now()
      const taken = await ctx.db.many<Taken>(TAKE, [batch, LEASE_SECONDS])
      if (taken.length === 0) return
      const bySubscription = new Map<string, Taken[]>()
      for (const d of taken.sort((a, b) => a.seq - b.seq)) {
        const list = bySubscription.get(d.webhook_id)
        if (list) list.push(d)
        else bySubscription.set(d.webhook_id, [d])
      }
      await Promise.all([...bySubscription.values()].map(async (list) => {
        for (const [i, d] of list.entries()) {
          // A slow receiver: what could not start in time goes back, before its lease runs out
          // and another worker takes it while this one still holds it.
          if (Date.now() - takenAt > LEASE_SECONDS * 1000 - timeoutMs - 2000) {
            await ctx.db.query(RELEASE, [list.slice(i).map((x) => x.id)])
            return
          }
          await attempt(d).catch((err) => log.error({ err, delivery_id: d.id }, 'webhook attempt could not be recorded'))
        }
      }))
    }
  }

  function wake(): void {
    if (stopped) return
    if (running) {
      again = true
      return
    }
    running = (async () => {
      do {
        again = false
        await drain().catch((err) => log.error({ err }, 'webhook delivery failed'))
      } while (again && !stopped)
      await lookAgain().catch((err) => {
        log.error({ err }, 'could not read when the next webhook delivery is due')
        lookIn(pollMs)
      })
      running = null
    })()
  }

  /** The next look: when the earliest pending delivery is due, or after pollMs at the latest. */
  async function lookAgain(): Promise<void> {
    if (stopped) return
    if (ctx.dbState !== 'ready') return lookIn(Math.min(pollMs, SOON_MS))
    const due = (await ctx.db.one<{ ms: number | null }>(NEXT_DUE))?.ms ?? null
    lookIn(due === null ? pollMs : Math.min(pollMs, due <= 0 ? SOON_MS : due))
  }

  let timer: NodeJS.Timeout | undefined
  function lookIn(ms: number): void {
    clearTimeout(timer)
    if (stopped) return
    timer = setTimeout(wake, ms)
    timer.unref()
  }

  const unsubscribe = onDeliveriesQueued(ctx.db, wake)
  // Writes of other processes (the scheduler's, another instance's). Also signalled when the
  // listening connection was lost or is back, since notifications may have been missed.
  ctx.db.listen(DELIVERIES_CHANNEL, wake)
  wake()
  return {
    async stop() {
      stopped = true
      clearTimeout(timer)
      unsubscribe()
      await running
    },
  }
}
