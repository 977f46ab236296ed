import type { User } from '../../contract/accounts.ts'
import type { Queryable } from '../../server/db/db.ts'

/** The User record of the API: {id, email, name, created_at, avatar_url, preferences}. */
export type { User } from '../../contract/accounts.ts'

/** The columns that make a User, for SELECT and RETURNING lists. */
export const USER_COLUMNS = 'id, email, name, created_at, avatar_url, preferences'

/** Addresses are matched case-insensitively and kept in lower case, so one person has one account. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase()
}

export async function getUser(db: Queryable, userId: string): Promise<User | null> {
  return db.one<User>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [userId])
}

/**
 * Inserts an account, or returns null when the address is taken (the unique index on
 * lower(email) decides, so two simultaneous registrations cannot both succeed).
 */
export async function insertUser(
  db: Queryable,
  fields: { email: string; name: string; passwordHash: string | null; organization?: string | null; avatarUrl?: string | null },
): Promise<User | null> {
  return db.one<User>(
    `INSERT INTO users (email, name, password_hash, organization, avatar_url, email_verified_at)
     VALUES ($1, $2, $3, $4, $5, CASE WHEN $3::text IS NULL THEN now() END)
     ON CONFLICT DO NOTHING
     RETURNING ${USER_COLUMNS}`,
    [normalizeEmail(fields.email), fields.name, fields.passwordHash, fields.organization ?? null, fields.avatarUrl ?? null],
  )
}
