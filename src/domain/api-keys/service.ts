import type { Db, Queryable } from '../../server/db/db.ts'
import { AppError, notFound } from '../../server/errors.ts'
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
}

const COLUMNS = 'id, name, prefix, created_at, last_used, expires_at'
const ACTIVE = 'revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())'

/** 24 random bytes are exactly 32 base64url characters. */
export function generateKey(): string {
  return KEY_PREFIX + randomToken(24)
}

export async function createApiKey(
  db: Db,
  userId: string,
  input: { name: string; expires_in_days?: number | null },
  maxActive = MAX_ACTIVE_KEYS,
): Promise<ApiKeyRecord & { key: string }> {
  const key = generateKey()
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
    const record = await tx.one<ApiKeyRecord>(
      `INSERT INTO api_keys (user_id, name, prefix, key_hash, expires_at)
       VALUES ($1, $2, $3, $4, CASE WHEN $5::int IS NULL THEN NULL ELSE now() + make_interval(days => $5::int) END)
       RETURNING ${COLUMNS}`,
      [userId, input.name, key.slice(0, PREFIX_LENGTH), sha256(key), input.expires_in_days ?? null],
    )
    return { ...record!, key }
  })
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
