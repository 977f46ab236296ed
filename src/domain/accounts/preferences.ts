import type { Preferences, PreferencesPatch } from '../../contract/accounts.ts'
import { mergePreferences } from '../../contract/merge-preferences.ts'
import type { Db } from '../../server/db/db.ts'

// User preferences: a small, closed document (its schema and the merge rule: src/contract/accounts.ts).

export { mergePreferences }

/** Merges the patch into the stored preferences under the user's row lock; returns the result. */
export async function updatePreferences(db: Db, userId: string, patch: PreferencesPatch): Promise<Preferences> {
  return db.transaction(async (tx) => {
    const row = await tx.one<{ preferences: Preferences }>('SELECT preferences FROM users WHERE id = $1 FOR UPDATE', [userId])
    const merged = mergePreferences(row?.preferences ?? {}, patch)
    await tx.query('UPDATE users SET preferences = $2::jsonb, updated_at = now() WHERE id = $1', [userId, JSON.stringify(merged)])
    return merged
  })
}
