import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { CompanyParams, companyErrors, errors, IdParams, NoContent } from '../../contract/common.ts'
import { DeliveryQuery, Webhook, WebhookCreate, WebhookDelivery, WebhookPatch, WebhookWithSecret } from '../../contract/webhooks.ts'
import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { AppError } from '../../server/errors.ts'
import { userActor } from '../../server/http/guards.ts'
import { deliveriesQueued } from './outbox.ts'
import { webhookGuard } from './targets.ts'
import {
  createWebhook, deleteWebhook, getWebhook, listDeliveries, listWebhooks, retryDelivery, updateWebhook,
} from './service.ts'

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
export async function webhookRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['webhooks']
  const base = { preHandler: ownerOrAdmin }
  const WebhookParams = IdParams('webhook_id')
  const failures = { ...companyErrors(), ...errors(403) }

  app.get(
    '/webhooks',
    {
      ...base,
      schema: {
        tags, operationId: 'listWebhooks', summary: 'List webhook subscriptions', description: 'Owner or admin.',
        params: CompanyParams, response: { 200: Type.Array(Webhook), ...failures },
      },
    },
    async (request) => listWebhooks(ctx.db, request.membership.companyId),
  )

  app.post(
    '/webhooks',
    {
      ...base,
      schema: {
        tags, operationId: 'createWebhook', summary: 'Subscribe a URL to events', description: 'The answer carries the signing secret, this once.',
        params: CompanyParams, body: WebhookCreate, response: { 201: WebhookWithSecret, ...failures },
      },
    },
    async (request, reply) => {
      const created = await write(ctx, (tx) =>
        createWebhook(tx, request.membership.companyId, userActor(request), request.body, webhookGuard(ctx)),
      )
      return reply.status(201).send(created)
    },
  )

  app.get(
    '/webhooks/:webhook_id',
    {
      ...base,
      schema: { tags, operationId: 'getWebhook', summary: 'Get a webhook subscription', params: WebhookParams, response: { 200: Webhook, ...failures } },
    },
    async (request) => getWebhook(ctx.db, request.membership.companyId, request.params.webhook_id),
  )

  app.patch(
    '/webhooks/:webhook_id',
    {
      ...base,
      schema: {
        tags, operationId: 'updateWebhook', summary: 'Change a webhook subscription',
        params: WebhookParams, body: WebhookPatch, response: { 200: Webhook, ...failures },
      },
    },
    async (request) => {
      const updated = await write(ctx, (tx) =>
        updateWebhook(tx, request.membership.companyId, request.params.webhook_id, userActor(request), request.body, webhookGuard(ctx)),
      )
      if (updated.enabled) deliveriesQueued(ctx.db) // deliveries held while it was disabled may go now
      return updated
    },
  )

  app.delete(
    '/webhooks/:webhook_id',
    {
      ...base,
      schema: { tags, operationId: 'deleteWebhook', summary: 'Delete a webhook subscription', params: WebhookParams, response: { 204: NoContent, ...failures } },
    },
    async (request, reply) => {
      await write(ctx, (tx) => deleteWebhook(tx, request.membership.companyId, request.params.webhook_id, userActor(request)))
      return reply.status(204).send()
    },
  )

  app.get(
    '/webhooks/:webhook_id/deliveries',
    {
      ...base,
      schema: {
        tags, operationId: 'listWebhookDeliveries', summary: "A subscription's deliveries, newest first",
        params: WebhookParams, querystring: DeliveryQuery, response: { 200: Type.Array(WebhookDelivery), ...failures },
      },
    },
    async (request) => listDeliveries(ctx.db, request.membership.companyId, request.params.webhook_id, request.query.limit ?? 50),
  )

  app.post(
    '/webhooks/:webhook_id/deliveries/:delivery_id/retry',
    {
      ...base,
      schema: {
        tags, operationId: 'retryWebhookDelivery', summary: 'Send a delivery again now',
        params: Type.Object({ ...WebhookParams.properties, delivery_id: IdParams('delivery_id').properties.delivery_id }),
        response: { 202: WebhookDelivery, ...failures },
      },
    },
    async (request, reply) => {
      const { webhook_id, delivery_id } = request.params
      const delivery = await write(ctx, (tx) => retryDelivery(tx, request.membership.companyId, webhook_id, delivery_id))
      deliveriesQueued(ctx.db)
      return reply.status(202).send(delivery)
    },
  )
}
