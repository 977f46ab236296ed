import type { FastifyInstance, FastifyRequest } from 'fastify'
import { DeliveryQuery, WebhookCreate, WebhookPatch } from '../../contract/webhooks.ts'
import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { AppError } from '../../server/errors.ts'
import { userActor } from '../../server/http/guards.ts'
import { idParams } from '../companies/json-schema.ts'
import { deliveriesQueued } from './outbox.ts'
import {
  createWebhook, deleteWebhook, getWebhook, listDeliveries, listWebhooks, retryDelivery, updateWebhook,
} from './service.ts'

type Params = { company_id: string; webhook_id: string; delivery_id: string }

/**
 * Subscriptions reveal where a company's data goes (and a URL may carry a receiver's token):
 * owners and admins only, and never an agent through its run credential, reads included.
 */
async function ownerOrAdmin(request: FastifyRequest): Promise<void> {
  if (request.principal.via === 'run') {
    throw new AppError('FORBIDDEN', "An agent's run credential lacks the right to manage webhooks", { right: 'manage webhooks' })
  }
  if (request.membership.role !== 'owner' && request.membership.role !== 'admin') {
    throw new AppError('FORBIDDEN', 'Only an owner or an admin of the company manages webhooks')
  }
}

// Webhook subscriptions and their delivery log (docs/webhooks.md).
export async function webhookRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const tags = ['webhooks']
  const base = { preHandler: ownerOrAdmin }
  const one = { tags, params: idParams('webhook_id') }

  app.get('/webhooks', { ...base, schema: { tags, params: idParams() } }, async (request) =>
    listWebhooks(ctx.db, request.membership.companyId),
  )

  app.post('/webhooks', { ...base, schema: { tags, params: idParams(), body: WebhookCreate } }, async (request, reply) => {
    const created = await write(ctx, (tx) =>
      createWebhook(tx, request.membership.companyId, userActor(request), request.body as WebhookCreate, ctx.config.webhooksAllowPrivate),
    )
    return reply.status(201).send(created)
  })

  app.get('/webhooks/:webhook_id', { ...base, schema: one }, async (request) =>
    getWebhook(ctx.db, request.membership.companyId, (request.params as Params).webhook_id),
  )

  app.patch('/webhooks/:webhook_id', { ...base, schema: { ...one, body: WebhookPatch } }, async (request) => {
    const updated = await write(ctx, (tx) =>
      updateWebhook(tx, request.membership.companyId, (request.params as Params).webhook_id, userActor(request),
        request.body as WebhookPatch, ctx.config.webhooksAllowPrivate),
    )
    if (updated.enabled) deliveriesQueued(ctx.db) // deliveries held while it was disabled may go now
    return updated
  })

  app.delete('/webhooks/:webhook_id', { ...base, schema: one }, async (request, reply) => {
    await write(ctx, (tx) => deleteWebhook(tx, request.membership.companyId, (request.params as Params).webhook_id, userActor(request)))
    return reply.status(204).send()
  })

  app.get('/webhooks/:webhook_id/deliveries', { ...base, schema: { ...one, querystring: DeliveryQuery } }, async (request) =>
    listDeliveries(ctx.db, request.membership.companyId, (request.params as Params).webhook_id,
      (request.query as { limit?: number }).limit ?? 50),
  )

  app.post('/webhooks/:webhook_id/deliveries/:delivery_id/retry',
    { ...base, schema: { tags, params: idParams('webhook_id', 'delivery_id') } },
    async (request, reply) => {
      const params = request.params as Params
      const delivery = await write(ctx, (tx) => retryDelivery(tx, request.membership.companyId, params.webhook_id, params.delivery_id))
      deliveriesQueued(ctx.db)
      return reply.status(202).send(delivery)
    })
}
