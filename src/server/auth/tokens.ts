import crypto from 'node:crypto'
import { createSigner, createVerifier } from 'fast-jwt'

export const ACCESS_TOKEN_SECONDS = 30 * 60
export const REFRESH_TOKEN_SECONDS = 7 * 24 * 60 * 60

export interface TokenClaims {
  sub: string
  type: 'access' | 'refresh'
  iat: number
  exp: number
  jti?: string
}

/**
 * Our own tokens (sessions and run credentials) are HS256, signed and checked with fast-jwt,
 * which does it synchronously with node:crypto's HMAC: about 10 µs of CPU each, where jose's
 * WebCrypto path took about 110 µs, and a claim signs one while every request of a browser or
 * an agent checks one (jose stays for the identity provider's tokens, accounts/idp.ts, whose
 * keys come from a JWKS). One signer and one verifier per secret.
 *
 * Every token we sign carries exp, iat and sub: a correctly signed token that lacks one (a
 * token without `exp` would never expire) is refused like a forged one.
 */
const tools = new Map<string, { sign: (payload: Record<string, unknown>) => string; verify: (token: string) => Record<string, unknown> }>()
function toolsOf(secret: string) {
  let found = tools.get(secret)
  if (!found) {
    found = {
      // The payloads carry their own iat and exp (sign below), which the signer keeps.
      sign: createSigner({ key: secret, algorithm: 'HS256' }),
      verify: createVerifier({ key: secret, algorithms: ['HS256'], requiredClaims: ['exp', 'iat', 'sub'] }),
    }
    tools.set(secret, found)
  }
  return found
}

/** A signed token of `seconds` lifetime with these claims besides iat and exp. */
function sign(secret: string, claims: Record<string, unknown>, seconds: number): { token: string; exp: number } {
  const iat = Math.floor(Date.now() / 1000)
  const exp = iat + seconds
  return { token: toolsOf(secret).sign({ ...claims, iat, exp }), exp }
}

/** The claims of a token we signed that has not expired, or null (forged, expired, malformed, lacking a claim). */
function verified(secret: string, token: string): Record<string, unknown> | null {
  try {
    return toolsOf(secret).verify(token)
  } catch {
    return null
  }
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

export function signAccessToken(secret: string, userId: string): string {
  return sign(secret, { type: 'access', sub: userId }, ACCESS_TOKEN_SECONDS).token
}

export function signRefreshToken(secret: string, userId: string): { token: string; jti: string; exp: number } {
  const jti = crypto.randomUUID()
  const { token, exp } = sign(secret, { type: 'refresh', sub: userId, jti }, REFRESH_TOKEN_SECONDS)
  return { token, jti, exp }
}

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
export function signRunToken(secret: string, run: { id: string; agent_id: string; company_id: string }, userId: string): string {
  return sign(secret, { type: 'run', agent: run.agent_id, company: run.company_id, user: userId, sub: run.id }, RUN_TOKEN_SECONDS).token
}

/** The claims of a valid, unexpired run credential, or null. */
export function verifyRunToken(secret: string, token: string): RunTokenClaims | null {
  const p = verified(secret, token)
  if (!p || p.type !== 'run' || [p.sub, p.agent, p.company, p.user].some((v) => typeof v !== 'string')) return null
  return p as unknown as RunTokenClaims
}

/**
 * The claims of a valid, unexpired token of the given type (`access` or `refresh`), or null.
 */
export function verifyToken(secret: string, token: string, type: 'access' | 'refresh'): TokenClaims | null {
  const p = verified(secret, token)
  if (!p || p.type !== type || typeof p.sub !== 'string' || typeof p.iat !== 'number' || typeof p.exp !== 'number') return null
  return p as unknown as TokenClaims
}
