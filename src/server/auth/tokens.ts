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

/**
 * The HMAC key of a secret, imported once: given the secret's bytes, jose imports a WebCrypto
 * key on every call, 80 of the 186 µs of CPU a signature took (a run claim signs one).
 */
const keys = new Map<string, Promise<CryptoKey>>()
function keyOf(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret)
  if (!key) {
    key = crypto.webcrypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])
    keys.set(secret, key)
  }
  return key
}

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
    .sign(await keyOf(secret))
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
    .sign(await keyOf(secret))
  return { token, jti, exp }
}

/**
 * Every token we sign carries exp, iat and sub: a correctly signed token that lacks one (a
 * token without `exp` would never expire) is refused like a forged one.
 */
const VERIFY = { algorithms: ['HS256'], requiredClaims: ['exp', 'iat', 'sub'] }

/** How long a run credential's signature holds; the run's status ends it much sooner (auth/run-credential.ts). */
export const RUN_TOKEN_SECONDS = 7 * 24 * 60 * 60

export interface RunTokenClaims {
  /** The run. */
  sub: string
  type: 'run'
  agent: string
  company: string
  /** The person whose runner claimed the run: a run credential never reaches beyond them. */
  user: string
  iat: number
  exp: number
}

/** A bearer credential for one claimed run, its agent and its company (API-DECISIONS.md "Agents acting through a run"). */
export async function signRunToken(secret: string, run: { id: string; agent_id: string; company_id: string }, userId: string): Promise<string> {
  return new SignJWT({ type: 'run', agent: run.agent_id, company: run.company_id, user: userId })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(run.id)
    .setIssuedAt()
    .setExpirationTime(`${RUN_TOKEN_SECONDS}s`)
    .sign(await keyOf(secret))
}

/** The claims of a valid, unexpired run credential, or null. */
export async function verifyRunToken(secret: string, token: string): Promise<RunTokenClaims | null> {
  try {
    const { payload } = await jwtVerify(token, await keyOf(secret), VERIFY)
    const p = payload as Record<string, unknown>
    if (p.type !== 'run' || [p.sub, p.agent, p.company, p.user].some((v) => typeof v !== 'string')) return null
    return payload as unknown as RunTokenClaims
  } catch {
    return null
  }
}

/**
 * The claims of a valid, unexpired token of the given type (`access` or `refresh`), or null.
 */
export async function verifyToken(secret: string, token: string, type: 'access' | 'refresh'): Promise<TokenClaims | null> {
  try {
    const { payload } = await jwtVerify(token, await keyOf(secret), VERIFY)
    if (payload.type !== type || typeof payload.sub !== 'string' || typeof payload.iat !== 'number' || typeof payload.exp !== 'number') return null
    return payload as unknown as TokenClaims
  } catch {
    return null
  }
}
