import type { AppContext } from '../../server/context.ts'
import { AppError } from '../../server/errors.ts'
import type { Mailer } from '../../server/auth/mailer.ts'
import type { Queryable } from '../../server/db/db.ts'
import { randomToken, sha256 } from '../../server/auth/tokens.ts'
import { revokeAllSessions } from './sessions.ts'

// An address is proven by a link mailed to it at registration (token as for a password reset:
// 32 random bytes, only the SHA-256 stored, single use; 7 days). An identity-provider sign-in
// never lands in an account whose address was not proven: on the first one, the account's
// password, sessions, refresh tokens and API keys are revoked first (takeOverUnverified), so
// whoever registered the address before its owner keeps nothing.

export const VERIFY_TOKEN_BYTES = 32
export const VERIFY_LINK_DAYS = 7

export const invalidVerificationToken = () => new AppError('INVALID_VERIFICATION_TOKEN', 'Invalid, used or expired email verification link')

/** Records a new link for the account and returns its token. */
export async function issueVerification(db: Queryable, userId: string): Promise<string> {
  const token = randomToken(VERIFY_TOKEN_BYTES)
  await db.query(
    `INSERT INTO email_verifications (user_id, token_hash, expires_at) VALUES ($1, $2, now() + make_interval(days => $3))`,
    [userId, sha256(token), VERIFY_LINK_DAYS],
  )
  return token
}

export function verificationLink(webAppUrl: string, token: string): string {
  return `${webAppUrl}/verify-email?token=${encodeURIComponent(token)}`
}

/** Mails the link in the background (the answer neither waits for nor reveals the mail server). */
export function sendVerification(ctx: Pick<AppContext, 'config' | 'log'>, mailer: Mailer, to: string, token: string): void {
  const link = verificationLink(ctx.config.webAppUrl, token)
  void mailer
    .send({
      to,
      subject: 'Confirm your Shopfloor email address',
      text:
        `Someone created a Shopfloor account with this address.\n\n` +
        `Open this link within ${VERIFY_LINK_DAYS} days to confirm it is yours:\n${link}\n\n` +
        `If it was not you, ignore this message: signing in with your identity provider takes the account over.\n`,
    })
    .catch((err: Error) => ctx.log.error({ err: { message: err.message } }, 'verification email could not be sent'))
}

/** POST /api/verify-email: uses the link once and marks the address proven. */
export async function verifyEmail(ctx: Pick<AppContext, 'db'>, token: string): Promise<void> {
  const used = await ctx.db.one<{ user_id: string }>(
    `UPDATE email_verifications SET used_at = now()
      WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id`,
    [sha256(token)],
  )
  if (!used) throw invalidVerificationToken()
  await ctx.db.query('UPDATE users SET email_verified_at = coalesce(email_verified_at, now()) WHERE id = $1', [used.user_id])
}

/**
 * In the identity-provider sign-in's transaction, for an account whose address is not proven:
 * revokes its password, every refresh token and API key, and every access token issued before
 * now (password_changed_at), then marks the address proven by the provider. Returns whether it did.
 */
export async function takeOverUnverified(tx: Queryable, userId: string): Promise<boolean> {
  const taken = await tx.one(
    `UPDATE users SET password_hash = NULL, password_changed_at = now(), failed_logins = 0, locked_until = NULL,
                      email_verified_at = now(), updated_at = now()
      WHERE id = $1 AND email_verified_at IS NULL RETURNING id`,
    [userId],
  )
  if (!taken) return false
  await revokeAllSessions(tx, userId)
  await tx.query('UPDATE api_keys SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL', [userId])
  await tx.query('UPDATE password_resets SET voided_at = now() WHERE user_id = $1 AND used_at IS NULL AND voided_at IS NULL', [userId])
  await tx.query('UPDATE email_verifications SET used_at = now() WHERE user_id = $1 AND used_at IS NULL', [userId])
  return true
}
