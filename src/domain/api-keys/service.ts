import type { Db, Queryable } from '../../server/db/db.ts'
import { AppError, invalidField, notFound } from '../../server/errors.ts'
import { randomToken, sha256 } from '../../server/auth/tokens.ts'

// Personal API keys: `svc_live_` plus 32 URL-safe characters. Only the SHA-256 is stored; the
// key itself is shown once, in the create answer. A key is active while it is neither revoked
// nor expired; only active keys are listed, count toward the limit and hold their name.

export const KEY_PREFIX = 'svc_live_'
export const MAX_ACTIVE_KEYS = 20
/** The older /api/users/{username}/api-keys paths kept their lower limit. */
export const LEGACY_MAX_ACTIVE_KEYS = 10
export const PREFIX_LENGTH = 13

export interface ApiKeyRecord {
  id: string
  name: string
  prefix: string
  created_at: string
  last_used: string | null
  expires_at: string | null
  company_id: string | null
}

export interface ApiKeyInput {
  name: string
  expires_in_days?: number | null
  expires_at?: string | null
  company_id?: string | null
}

const COLUMNS = 'id, name, prefix, created_at, last_used, expires_at, company_id'
const ACTIVE = 'revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())'

/** 24 random bytes are exactly 32 base64url characters. */
export function generateKey(): string {
  return KEY_PREFIX + randomToken(24)
}

export async function createApiKey(
  db: Db,
  userId: string,
  input: ApiKeyInput,
  maxActive = MAX_ACTIVE_KEYS,
): Promise<ApiKeyRecord & { key: string }> {
  const key = generateKey()
  const expiresAt = expiry(input)
  return db.transaction(async (tx) => {
    // The user's row lock serialises key creation, so the limit and the name rule hold even
    // for simultaneous requests.
    await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId])
    const active = await tx.one<{ total: number; same_name: boolean }>(
      `SELECT count(*)::int AS total, coalesce(bool_or(name = $2), false) AS same_name
         FROM api_keys WHERE user_id = $1 AND ${ACTIVE}`,
      [userId, input.name],
    )
    if (active!.same_name) throw new AppError('API_KEY_EXISTS', `An active API key named "${input.name}" already exists`, { name: input.name })
    if (active!.total >= maxActive) {
      throw new AppError('API_KEY_LIMIT', `At most ${maxActive} active API keys per user`, { limit: maxActive })
    }
    // A key limited to a company the caller is not in is refused as that company is to them.
    if (input.company_id) {
      const member = await tx.one('SELECT 1 FROM memberships WHERE user_id = $1 AND company_id = $2', [userId, input.company_id])
      if (!member) throw new AppError('NOT_FOUND', 'Company not found')
    }
    const record = await tx.one<ApiKeyRecord>(
      `INSERT INTO api_keys (user_id, name, prefix, key_hash, expires_at, company_id)
       VALUES ($1, $2, $3, $4,
               CASE WHEN $5::int IS NOT NULL THEN now() + make_interval(days => $5::int) ELSE $6::timestamptz END,
               $7)
       RETURNING ${COLUMNS}`,
      [userId, input.name, key.slice(0, PREFIX_LENGTH), sha256(key), input.expires_in_days ?? null, expiresAt, input.company_id ?? null],
    )
    return { ...record!, key }
  })
}

/** `expires_at` as given, checked: one way of saying the expiry, and a time still to come. */
function expiry(input: ApiKeyInput): string | null {
  if (input.expires_at == null) return null
  if (input.expires_in_days != null) {
    throw invalidField('body', 'expires_at', 'Give expires_at or expires_in_days, not both', input.expires_at)
  }
  if (Date.parse(input.expires_at) <= Date.now()) {
    throw invalidField('body', 'expires_at', 'The expiry must be in the future', input.expires_at)
  }
  return input.expires_at
}

/** The user's active keys, newest first, without the secret. */
export async function listApiKeys(db: Queryable, userId: string): Promise<ApiKeyRecord[]> {
  return db.many<ApiKeyRecord>(
    `SELECT ${COLUMNS} FROM api_keys WHERE user_id = $1 AND ${ACTIVE} ORDER BY created_at DESC, id DESC`,
    [userId],
  )
}

/** Revokes one of the user's active keys; someone else's, a revoked or an expired key is 404. */
export async function revokeApiKey(db: Queryable, userId: string, keyId: string): Promise<void> {
  const revoked = await db.query(`UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND user_id = $2 AND ${ACTIVE}`, [
    keyId,
    userId,
  ])
  if (revoked.rowCount === 0) throw notFound('API key')
}
