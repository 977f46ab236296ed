import type { AppContext } from '../../server/context.ts'
import { AppError } from '../../server/errors.ts'
import type { Mailer } from '../../server/auth/mailer.ts'
import { hashPassword } from '../../server/auth/passwords.ts'
import { randomToken, sha256 } from '../../server/auth/tokens.ts'
import { revokeAllSessions } from './sessions.ts'
import { normalizeEmail } from './users.ts'

// Password reset by emailed link. The token is 32 random bytes, URL-safe; only its SHA-256 is
// stored. A link works once, for 30 minutes; a newer request voids older unused links; an
// account gets at most one link per 60 seconds.

export const RESET_TOKEN_BYTES = 32
export const RESET_LINK_MINUTES = 30
export const RESET_REQUEST_INTERVAL_SECONDS = 60

/** The one answer to every forgot request, so it tells nothing about which addresses exist. */
export const FORGOT_MESSAGE = 'If an account exists for this email, a password reset link has been sent'

const invalidResetToken = () => new AppError('INVALID_RESET_TOKEN', 'Invalid or expired password reset token')

/**
 * Records a new link for an active account (unless one was issued in the last 60 seconds) and
 * returns the token to mail, or null when nothing is to be sent.
 */
export async function issueResetToken(ctx: Pick<AppContext, 'db'>, email: string, requestedIp: string | null): Promise<{ to: string; token: string } | null> {
  return ctx.db.transaction(async (tx) => {
    // The row lock serialises requests for one account, so the 60-second rule holds under load.
    // The check runs as its own statement after the lock is held, so it sees a link that a
    // request we waited for has just committed.
    const user = await tx.one<{ id: string; email: string }>(
      'SELECT id, email FROM users WHERE lower(email) = $1 AND is_active FOR UPDATE',
      [normalizeEmail(email)],
    )
    if (!user) return null
    const recent = await tx.one(
      'SELECT 1 FROM password_resets WHERE user_id = $1 AND created_at > now() - make_interval(secs => $2) LIMIT 1',
      [user.id, RESET_REQUEST_INTERVAL_SECONDS],
    )
    if (recent) return null
    const token = randomToken(RESET_TOKEN_BYTES)
    await tx.query(
      'UPDATE password_resets SET voided_at = now() WHERE user_id = $1 AND used_at IS NULL AND voided_at IS NULL',
      [user.id],
    )
    await tx.query(
      `INSERT INTO password_resets (user_id, token_hash, requested_ip, expires_at)
       VALUES ($1, $2, $3, now() + make_interval(mins => $4))`,
      [user.id, sha256(token), requestedIp, RESET_LINK_MINUTES],
    )
    return { to: user.email, token }
  })
}

export function resetLink(webAppUrl: string, token: string): string {
  return `${webAppUrl}/reset-password?token=${encodeURIComponent(token)}`
}

/**
 * POST /api/password/forgot: records the link, then mails it in the background so the answer
 * does not wait for (or reveal) the mail server. A failed send is logged without the link.
 */
export async function requestPasswordReset(
  ctx: Pick<AppContext, 'db' | 'config' | 'log'>,
  mailer: Mailer,
  email: string,
  requestedIp: string | null,
): Promise<void> {
  const issued = await issueResetToken(ctx, email, requestedIp)
  if (!issued) return
  const link = resetLink(ctx.config.webAppUrl, issued.token)
  void mailer
    .send({
      to: issued.to,
      subject: 'Reset your Shopfloor password',
      text:
        `Someone asked to reset the password of your Shopfloor account.\n\n` +
        `Open this link within ${RESET_LINK_MINUTES} minutes to choose a new password:\n${link}\n\n` +
        `If it was not you, ignore this message; your password stays as it is.\n`,
    })
    .catch((err: Error) => ctx.log.error({ err: { message: err.message } }, 'password reset email could not be sent'))
}

/**
 * POST /api/password/reset: uses the link once and, in the same transaction, sets the password
 * and its change time, clears the lockout, revokes every refresh token and every API key created
 * before this second. Access tokens issued before it stop working (authenticate.ts compares iat).
 */
export async function completePasswordReset(ctx: Pick<AppContext, 'config' | 'db'>, token: string, password: string): Promise<void> {
  const tokenHash = sha256(token)
  const usable = `token_hash = $1 AND used_at IS NULL AND voided_at IS NULL AND expires_at > now()`
  // A bad token is turned away before the (deliberately slow) password hashing.
  if (!(await ctx.db.one(`SELECT 1 FROM password_resets WHERE ${usable}`, [tokenHash]))) throw invalidResetToken()
  const passwordHash = await hashPassword(password, ctx.config.passwordCost)
  await ctx.db.transaction(async (tx) => {
    // The guarded update decides: of two simultaneous resets with one link, one wins.
    const used = await tx.one<{ user_id: string }>(
      `UPDATE password_resets SET used_at = now() WHERE ${usable} RETURNING user_id`,
      [tokenHash],
    )
    if (!used) throw invalidResetToken()
    await tx.query(
      `UPDATE users SET password_hash = $2, password_changed_at = now(), failed_logins = 0, locked_until = NULL,
                        updated_at = now()
        WHERE id = $1`,
      [used.user_id, passwordHash],
    )
    await revokeAllSessions(tx, used.user_id)
    await tx.query(
      `UPDATE api_keys SET revoked_at = now()
        WHERE user_id = $1 AND revoked_at IS NULL AND date_trunc('second', created_at) < date_trunc('second', now())`,
      [used.user_id],
    )
  })
}
