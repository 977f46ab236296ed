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
    await verifyPassword(password, await dummyHash(ctx.config.passwordCost))
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

// The failure count after one more failure: a lock that has run out restarts it from zero.
// (Inside UPDATE ... SET every column reference is the row as it was before this statement.)
const NEXT_COUNT = 'CASE WHEN locked_until <= now() THEN 1 ELSE failed_logins + 1 END'

/**
 * Counts one failure in a single guarded statement, so simultaneous failures each count.
 * Reaching the maximum sets a new lock; the failure that reaches it is still answered
 * INVALID_CREDENTIALS by the caller.
 */
async function recordFailure(ctx: Pick<AppContext, 'db'>, userId: string): Promise<void> {
  await ctx.db.query(
    `UPDATE users
        SET failed_logins = ${NEXT_COUNT},
            locked_until = CASE WHEN ${NEXT_COUNT} >= $2 THEN now() + make_interval(mins => $3) END
      WHERE id = $1 AND (locked_until IS NULL OR locked_until <= now())`,
    [userId, MAX_FAILED_LOGINS, LOCK_MINUTES],
  )
}
