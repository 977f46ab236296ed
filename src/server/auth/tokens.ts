import crypto from 'node:crypto'
import { SignJWT, jwtVerify } from 'jose'

export const ACCESS_TOKEN_SECONDS = 30 * 60
export const REFRESH_TOKEN_SECONDS = 7 * 24 * 60 * 60

export interface TokenClaims {
  sub: string
  type: 'access' | 'refresh'
  iat: number
  exp: number
  jti?: string
}

const encoder = new TextEncoder()

export function sha256(value: string): string {
  return crypto.createHash('sha256').update(value).digest('hex')
}

/** Constant-time comparison of two strings (hashes or secrets). */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && crypto.timingSafeEqual(x, y)
}

/** URL-safe random text from `bytes` random bytes. */
export function randomToken(bytes: number): string {
  return crypto.randomBytes(bytes).toString('base64url')
}

export async function signAccessToken(secret: string, userId: string): Promise<string> {
  return new SignJWT({ type: 'access' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setIssuedAt()
    .setExpirationTime(`${ACCESS_TOKEN_SECONDS}s`)
    .sign(encoder.encode(secret))
}

export async function signRefreshToken(secret: string, userId: string): Promise<{ token: string; jti: string; exp: number }> {
  const jti = crypto.randomUUID()
  const now = Math.floor(Date.now() / 1000)
  const exp = now + REFRESH_TOKEN_SECONDS
  const token = await new SignJWT({ type: 'refresh' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setIssuedAt(now)
    .setExpirationTime(exp)
    .setJti(jti)
    .sign(encoder.encode(secret))
  return { token, jti, exp }
}

/**
 * The claims of a valid, unexpired token of the given type, or null. A token must carry every
 * claim we sign (exp, iat, sub, type): a token without `exp` would never expire, so a
 * correctly signed one that lacks any of them is refused like a forged one.
 */
export async function verifyToken(secret: string, token: string, type: 'access' | 'refresh'): Promise<TokenClaims | null> {
  try {
    const { payload } = await jwtVerify(token, encoder.encode(secret), { algorithms: ['HS256'], requiredClaims: ['exp', 'iat', 'sub'] })
    if (payload.type !== type || typeof payload.sub !== 'string' || typeof payload.iat !== 'number' || typeof payload.exp !== 'number') return null
    return payload as unknown as TokenClaims
  } catch {
    return null
  }
}
