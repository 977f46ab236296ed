import type { Queryable } from '../server/db/db.ts'
import { normalizeEmail } from '../domain/accounts/users.ts'
import { type AdminCommand, AdminUsageError } from './admin-command.ts'

// `shopfloor admin users deactivate|activate EMAIL`. The API has no endpoint for this.
// A deactivated account cannot sign in (ACCOUNT_INACTIVE) and every credential it holds
// (access tokens, refresh tokens, API keys) is refused while it stays deactivated; activating
// it again lets those credentials work again until they expire or are revoked.

async function setActive(db: Queryable, args: string[], out: (line: string) => void, active: boolean): Promise<number> {
  const [email] = args
  if (!email || args.length !== 1) throw new AdminUsageError(`usage: shopfloor admin users ${active ? 'activate' : 'deactivate'} EMAIL`)
  // `changed` compares with the state read under the row lock, so the operator learns whether
  // the command did anything.
  const user = await db.one<{ email: string; changed: boolean }>(
    `WITH target AS (SELECT id, is_active FROM users WHERE lower(email) = $1 FOR UPDATE)
     UPDATE users u SET is_active = $2, updated_at = now()
       FROM target WHERE u.id = target.id
     RETURNING u.email, target.is_active <> $2 AS changed`,
    [normalizeEmail(email), active],
  )
  if (!user) throw new Error(`no account with email ${email}`)
  const state = active ? 'active' : 'deactivated'
  out(user.changed ? `${user.email}: ${state}` : `${user.email}: already ${state}`)
  return 0
}

export const userCommands: Record<string, AdminCommand> = {
  deactivate: (db, args, out) => setActive(db, args, out, false),
  activate: (db, args, out) => setActive(db, args, out, true),
}
