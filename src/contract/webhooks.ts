// Webhook subscriptions and their deliveries (API-DECISIONS.md "Operations").
import { type Static, Type } from 'typebox'

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()])

/** An event pattern: `*`, `<entity>.*` or one event type such as `task.created`. */
export const EventPattern = Type.String({ minLength: 1, maxLength: 50 })

export const WebhookCreate = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2000 }),
  events: Type.Optional(Type.Array(EventPattern, { minItems: 1, maxItems: 50 })),
  enabled: Type.Optional(Type.Boolean()),
  description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
}, { additionalProperties: false })
export type WebhookCreate = Static<typeof WebhookCreate>

export const WebhookPatch = Type.Partial(WebhookCreate, { additionalProperties: false })
export type WebhookPatch = Static<typeof WebhookPatch>

export const Webhook = Type.Object({
  id: Type.String({ format: 'uuid' }),
  url: Type.String(),
  events: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  description: Nullable(Type.String()),
  /** Why the service disabled it (3 days of failed deliveries); null when enabled or disabled by a person. */
  disabled_reason: Nullable(Type.String()),
  created_at: Type.String(),
})
export type Webhook = Static<typeof Webhook>

/** The create answer: the subscription plus its signing secret, shown this once. */
export const WebhookWithSecret = Type.Intersect([Webhook, Type.Object({ secret: Type.String() })])
export type WebhookWithSecret = Static<typeof WebhookWithSecret>

export const DeliveryStatus = Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')])

export const WebhookDelivery = Type.Object({
  id: Type.String({ format: 'uuid' }),
  event_id: Type.String(),
  type: Type.String(),
  status: DeliveryStatus,
  attempts: Type.Integer(),
  last_status_code: Type.Union([Type.Integer(), Type.Null()]),
  last_error: Nullable(Type.String()),
  /** When the last attempt ended (its response code or error above); null before the first. */
  last_attempt_at: Nullable(Type.String()),
  next_attempt_at: Nullable(Type.String()),
  delivered_at: Nullable(Type.String()),
  created_at: Type.String(),
})
export type WebhookDelivery = Static<typeof WebhookDelivery>

export const DeliveryQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
})

/** The body every attempt sends (signed per Standard Webhooks). */
export const WebhookPayload = Type.Object({
  id: Type.String(),
  type: Type.String(),
  company_id: Type.String({ format: 'uuid' }),
  created_at: Type.String(),
  /** The changed record as the API answers it; `{id}` for a deletion. */
  data: Type.Unknown(),
})
export type WebhookPayload = Static<typeof WebhookPayload>
