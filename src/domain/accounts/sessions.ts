import type { AppContext } from '../../server/context.ts'
import type { Queryable } from '../../server/db/db.ts'
import { AppError } from '../../server/errors.ts'
import { REFRESH_TOKEN_SECONDS, sha256, signAccessToken, signRefreshToken, verifyToken } from '../../server/auth/tokens.ts'

// A session is a refresh token (stored only as its SHA-256, with an active flag and an expiry)
// plus the short-lived access tokens it yields. Access tokens are not stored and cannot be
// revoked; they simply run out after 30 minutes.

export interface SessionTokens {
  access_token: string
  refresh_token: string
}

export const invalidRefreshToken = () => new AppError('INVALID_REFRESH_TOKEN', 'Invalid or expired refresh token')

/** Signs a new access and refresh token pair and records the refresh token. */
export async function startSession(ctx: Pick<AppContext, 'config'>, db: Queryable, userId: string): Promise<SessionTokens> {
  const secret = ctx.config.jwtSecret
  const access = signAccessToken(secret, userId)
  const refresh = signRefreshToken(secret, userId)
  await db.query(
    `INSERT INTO refresh_tokens (user_id, token_hash, expires_at)
     VALUES ($1, $2, now() + make_interval(secs => $3))`,
    [userId, sha256(refresh.token), REFRESH_TOKEN_SECONDS],
  )
  return { access_token: access, refresh_token: refresh.token }
}

/**
 * A new access token for a valid refresh token. The refresh token is not rotated: it stays
 * valid until it expires or is revoked (sign-out, password reset).
 */
export async function refreshSession(ctx: Pick<AppContext, 'config' | 'db'>, refreshToken: string): Promise<{ access_token: string }> {
  const claims = verifyToken(ctx.config.jwtSecret, refreshToken, 'refresh')
  if (!claims) throw invalidRefreshToken()
  const row = await ctx.db.one(
    `SELECT 1 FROM refresh_tokens t JOIN users u ON u.id = t.user_id
      WHERE t.token_hash = $1 AND t.user_id = $2 AND t.active AND t.expires_at > now() AND u.is_active`,
    [sha256(refreshToken), claims.sub],
  )
  if (!row) throw invalidRefreshToken()
  return { access_token: signAccessToken(ctx.config.jwtSecret, claims.sub) }
}

/**
 * Sign-out: revokes the given refresh token when it is the caller's, or every refresh token of
 * the caller when none is given. A token that is not the caller's revokes nothing.
 */
export async function endSessions(db: Queryable, userId: string, refreshToken: string | null): Promise<void> {
  if (refreshToken === null) {
    await revokeAllSessions(db, userId)
    return
  }
  await db.query('UPDATE refresh_tokens SET active = false WHERE token_hash = $1 AND user_id = $2 AND active', [
    sha256(refreshToken),
    userId,
  ])
}

export async function revokeAllSessions(db: Queryable, userId: string): Promise<void> {
  await db.query('UPDATE refresh_tokens SET active = false WHERE user_id = $1 AND active', [userId])
}
