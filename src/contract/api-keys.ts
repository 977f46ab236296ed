import { type Static, Type } from 'typebox'
import { Nullable, Timestamp, Uuid, OrNull } from './common.ts'

// Personal API keys (/api/me/api-keys). The secret is shown once, in the create answer.
// `company_id` limits a key to one company (API-DECISIONS.md "Agents run confined"): a runner's
// key should reach the company it works for and no other. `expires_at` is the same choice as
// `expires_in_days`, as an instant; a key takes one of them at most.

export const ApiKeyCreateBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  expires_in_days: Type.Optional(Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 1, maximum: 3650 })),
  expires_at: Type.Optional(Nullable(Type.String({ format: 'iso-date-time' }))),
  company_id: Type.Optional(Nullable(Uuid)),
})
export type ApiKeyCreateBody = Static<typeof ApiKeyCreateBody>

export const KeyParams = Type.Object({ key_id: Uuid })
/** The older paths name the owner: /api/users/{username}/api-keys. */
export const LegacyParams = Type.Object({ username: Type.String() })
export const LegacyKeyParams = Type.Object({ username: Type.String(), key_id: Uuid })

export const ApiKey = Type.Object({
  id: Uuid,
  name: Type.String(),
  prefix: Type.String(),
  created_at: Timestamp,
  last_used: OrNull(Timestamp),
  expires_at: OrNull(Timestamp),
  /** The one company the key acts in; null: every company of its owner. */
  company_id: OrNull(Uuid),
})
export type ApiKey = Static<typeof ApiKey>

/** The create answer: the only time the secret is shown. */
export const CreatedApiKey = Type.Object({ ...ApiKey.properties, key: Type.String() })
export type CreatedApiKey = Static<typeof CreatedApiKey>
