import type { Queryable } from '../../server/db/db.ts'
import { USER_COLUMNS, type User } from './users.ts'

/** PATCH /api/me: only the fields present change; avatar_url null clears the picture. */
export async function updateProfile(db: Queryable, userId: string, fields: { name?: string; avatar_url?: string | null }): Promise<User> {
  const user = await db.one<User>(
    `UPDATE users
        SET name = CASE WHEN $2 THEN $3 ELSE name END,
            avatar_url = CASE WHEN $4 THEN $5 ELSE avatar_url END,
            updated_at = now()
      WHERE id = $1
      RETURNING ${USER_COLUMNS}`,
    [userId, fields.name !== undefined, fields.name ?? null, fields.avatar_url !== undefined, fields.avatar_url ?? null],
  )
  return user!
}
