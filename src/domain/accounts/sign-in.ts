import type { AppContext } from '../../server/context.ts'
import { AppError } from '../../server/errors.ts'
import { dummyHash, verifyPassword } from '../../server/auth/passwords.ts'
import { type SessionTokens, startSession } from './sessions.ts'
import { getUser, normalizeEmail, type User } from './users.ts'

// Password sign-in with a per-account lockout: five consecutive wrong passwords lock the
// account for 30 minutes. The lockout is the only throttle on sign-in (no per-address limit).

export const MAX_FAILED_LOGINS = 5
export const LOCK_MINUTES = 30

export const invalidCredentials = () => new AppError('INVALID_CREDENTIALS', 'Incorrect email or password')
const accountLocked = () =>
  new AppError('ACCOUNT_LOCKED', `Account locked after ${MAX_FAILED_LOGINS} failed sign-ins; try again later`)
export const accountInactive = () => new AppError('ACCOUNT_INACTIVE', 'This account is deactivated')

interface Candidate {
  id: string
  password_hash: string | null
  is_active: boolean
  locked: boolean
}

export async function signInWithPassword(
  ctx: Pick<AppContext, 'config' | 'db'>,
  email: string,
  password: string,
): Promise<SessionTokens & { user: User }> {
  const candidate = await ctx.db.one<Candidate>(
    `SELECT id, password_hash, is_active, coalesce(locked_until > now(), false) AS locked
       FROM users WHERE lower(email) = $1`,
    [normalizeEmail(email)],
  )
  // Unknown addresses and password-less accounts (made by identity-provider sign-in) still pay
  // for one bcrypt comparison, so the answer and its timing match a wrong password.
  if (!candidate?.password_hash) {
    await verifyPassword(password, await dummyHash())
    throw invalidCredentials()
  }
  if (candidate.locked) throw accountLocked()

  if (!(await verifyPassword(password, candidate.password_hash))) {
    await recordFailure(ctx, candidate.id)
    throw invalidCredentials()
  }
  // Checked only after the password, so the state of an account is not told to a stranger.
  if (!candidate.is_active) throw accountInactive()

  // Clears the count, unless a lock was set by a concurrent failure in the meantime.
  const cleared = await ctx.db.query(
    `UPDATE users SET failed_logins = 0, locked_until = NULL
      WHERE id = $1 AND (locked_until IS NULL OR locked_until <= now())`,
    [candidate.id],
  )
  if (cleared.rowCount === 0) throw accountLocked()
  const tokens = await startSession(ctx, ctx.db, candidate.id)
  return { ...tokens, user: (await getUser(ctx.db, candidate.id))! }
}

/**
 * Counts one failure in a single statement. A lock that has run out restarts the count from
 * zero, so the first failure after it counts as 1; reaching the maximum sets a new lock.
 * The failure that reaches the maximum is still answered INVALID_CREDENTIALS by the caller.
 */
async function recordFailure(ctx: Pick<AppContext, 'db'>, userId: string): Promise<void> {
  await ctx.db.query(
    `UPDATE users u
        SET failed_logins = f.count,
            locked_until = CASE WHEN f.count >= $2 THEN now() + make_interval(mins => $3) END
       FROM (SELECT id, CASE WHEN locked_until IS NOT NULL AND locked_until <= now() THEN 1
                             ELSE failed_logins + 1 END AS count
               FROM users WHERE id = $1) f
      WHERE u.id = f.id AND (u.locked_until IS NULL OR u.locked_until <= now())`,
    [userId, MAX_FAILED_LOGINS, LOCK_MINUTES],
  )
}
