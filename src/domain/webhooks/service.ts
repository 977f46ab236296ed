import { randomBytes } from 'node:crypto'
import type { WebhookCreate, WebhookDelivery, WebhookPatch, Webhook, WebhookWithSecret } from '../../contract/webhooks.ts'
import type { Queryable } from '../../server/db/db.ts'
import type { Tx } from '../../server/db/write.ts'
import { AppError, invalidField, notFound } from '../../server/errors.ts'
import type { Actor } from '../../server/actor.ts'
import { diff, recordAudit } from '../audit/record.ts'
import { patternProblem } from './event-types.ts'
import { type OutboundGuard, targetProblem } from '../../server/outbound.ts'

// Subscriptions: create (the secret answered once), list, read, change, delete; the delivery
// log and a manual retry. Owners and admins only (routes.ts).

const COLUMNS = 'id, url, events, enabled, description, disabled_reason, created_at'
const FIELDS = ['url', 'events', 'enabled', 'description'] as const

/** A Standard Webhooks secret: `whsec_` and 24 random bytes in base64. */
function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`
}

async function checkInput(input: WebhookPatch, guard: OutboundGuard | null): Promise<void> {
  if (input.url !== undefined) {
    const problem = await targetProblem(input.url, guard)
    if (problem) throw invalidField('body', 'url', problem, input.url)
  }
  for (const [i, pattern] of (input.events ?? []).entries()) {
    const problem = patternProblem(pattern)
    if (problem) throw invalidField('body', `events.${i}`, problem, pattern)
  }
}

export function listWebhooks(q: Queryable, companyId: string): Promise<Webhook[]> {
  return q.many<Webhook>(`SELECT ${COLUMNS} FROM webhooks WHERE company_id = $1 ORDER BY created_at, id`, [companyId])
}

export async function getWebhook(q: Queryable, companyId: string, webhookId: string, lock = false): Promise<Webhook> {
  const row = await q.one<Webhook>(
    `SELECT ${COLUMNS} FROM webhooks WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2${lock ? ' FOR NO KEY UPDATE' : ''}`,
    [webhookId, companyId],
  )
  if (!row) throw notFound('Webhook')
  return row
}

export async function createWebhook(tx: Tx, companyId: string, actor: Actor, input: WebhookCreate, guard: OutboundGuard | null): Promise<WebhookWithSecret> {
  await checkInput(input, guard)
  const secret = newSecret()
  const row = await tx.one<Webhook>(
    `INSERT INTO webhooks (company_id, url, events, enabled, description, secret)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [companyId, input.url, [...new Set(input.events ?? ['*'])], input.enabled ?? true, input.description ?? null, secret],
  )
  await recordAudit(tx, {
    companyId, actor, verb: 'created', entityType: 'webhook', entityId: row!.id, label: row!.url,
    changes: diff({}, row!, FIELDS),
  })
  return { ...row!, secret }
}

/** Changes the fields given; enabling again clears the reason the service disabled it for. */
export async function updateWebhook(tx: Tx, companyId: string, webhookId: string, actor: Actor, patch: WebhookPatch, guard: OutboundGuard | null): Promise<Webhook> {
  await checkInput(patch, guard)
  const before = await getWebhook(tx, companyId, webhookId, true)
  const row = await tx.one<Webhook>(
    `UPDATE webhooks SET url = coalesce($3, url), events = coalesce($4, events), enabled = coalesce($5, enabled),
            description = CASE WHEN $6::boolean THEN $7 ELSE description END,
            disabled_reason = CASE WHEN coalesce($5, enabled) THEN NULL ELSE disabled_reason END,
            failing_since = CASE WHEN $5 AND NOT enabled THEN NULL ELSE failing_since END,
            updated_at = now()
      WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2 RETURNING ${COLUMNS}`,
    [webhookId, companyId, patch.url ?? null, patch.events ? [...new Set(patch.events)] : null, patch.enabled ?? null,
      patch.description !== undefined, patch.description ?? null],
  )
  const changes = diff(before, row!, FIELDS)
  if (Object.keys(changes).length) {
    await recordAudit(tx, { companyId, actor, verb: 'updated', entityType: 'webhook', entityId: webhookId, label: row!.url, changes })
  }
  return row!
}

export async function deleteWebhook(tx: Tx, companyId: string, webhookId: string, actor: Actor): Promise<void> {
  const row = await tx.one<{ url: string }>('DELETE FROM webhooks WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2 RETURNING url', [webhookId, companyId])
  if (!row) throw notFound('Webhook')
  await recordAudit(tx, { companyId, actor, verb: 'deleted', entityType: 'webhook', entityId: webhookId, label: row.url })
}

const DELIVERY_COLUMNS = `id, event_id, type, status, attempts, last_status_code, last_error, last_attempt_at,
  CASE WHEN status = 'pending' THEN next_attempt_at END AS next_attempt_at, delivered_at, created_at`

/** The delivery log of a subscription, newest first. */
export async function listDeliveries(q: Queryable, companyId: string, webhookId: string, limit: number): Promise<WebhookDelivery[]> {
  await getWebhook(q, companyId, webhookId)
  return q.many<WebhookDelivery>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY created_at DESC, seq DESC LIMIT $2`,
    [webhookId, limit],
  )
}

/**
 * Sends a delivery again as soon as the worker can: a failed one becomes pending with a new
 * 24-hour window, a pending one is brought forward; a delivered one is sent once more (the
 * receiver dedupes by webhook-id). Unless an attempt is in flight right now.
 */
export async function retryDelivery(tx: Tx, companyId: string, webhookId: string, deliveryId: string): Promise<WebhookDelivery> {
  await getWebhook(tx, companyId, webhookId)
  const row = await tx.one<WebhookDelivery>(
    `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(),
            retry_window_from = now()
      WHERE id = $1 AND webhook_id = $2 AND (leased_until IS NULL OR leased_until < now())
      RETURNING ${DELIVERY_COLUMNS}`,
    [deliveryId, webhookId],
  )
  if (row) return row
  const exists = await tx.one('SELECT 1 FROM webhook_deliveries WHERE id = $1 AND webhook_id = $2', [deliveryId, webhookId])
  if (!exists) throw notFound('Delivery')
  throw new AppError('INVALID_STATE', 'An attempt of this delivery is in flight; try again once it has ended')
}
