import crypto from 'node:crypto'
import type { Queryable } from '../db/db.ts'

/**
 * The key our tokens are signed with when JWT_SECRET_KEY is not set: 32 random bytes made by
 * the first instance that starts on this database and read by every later one, so tokens
 * signed by one instance are accepted by the others and survive a restart. The first writer
 * wins; a second instance starting at the same moment reads the winner's key.
 */
export async function keptSigningKey(db: Queryable): Promise<string> {
  const fresh = crypto.randomBytes(32).toString('base64url')
  await db.query(`INSERT INTO signing_keys (name, secret) VALUES ('jwt', $1) ON CONFLICT (name) DO NOTHING`, [fresh])
  const row = await db.one<{ secret: string }>(`SELECT secret FROM signing_keys WHERE name = 'jwt'`)
  return row!.secret
}
