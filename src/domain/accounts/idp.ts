import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose'
import type { AppContext } from '../../server/context.ts'
import { AppError } from '../../server/errors.ts'
import { type SessionTokens, startSession } from './sessions.ts'
import { takeOverUnverified } from './email-verification.ts'
import { accountInactive } from './sign-in.ts'
import { getUser, insertUser, normalizeEmail, type User } from './users.ts'

// Sign-in with an ID token from the external identity provider. The token must be RS256-signed
// by a key of the provider's key set, issued for our client id by an accepted issuer, unexpired,
// and carry a verified email. The key set is cached; a token signed with an unknown key id makes
// it refetch (at most once per cooldown, so forged key ids cannot hammer the provider).

export interface IdpSettings {
  clientId: string
  jwksUrl: string
  issuers: string[]
}

export type IdpRejection = 'signature' | 'audience' | 'issuer' | 'expired' | 'email_not_verified' | 'malformed' | 'keys_unavailable'

const rejected = (reason: IdpRejection) =>
  new AppError('IDP_SIGN_IN_FAILED', 'Identity provider sign-in failed', { reason })

export interface IdpIdentity {
  email: string
  name: string | null
  picture: string | null
}

export type IdpVerifier = (credential: string) => Promise<IdpIdentity>

export function createIdpVerifier(settings: IdpSettings, options: { cooldownMs?: number; log?: AppContext['log'] } = {}): IdpVerifier {
  const keys = createRemoteJWKSet(new URL(settings.jwksUrl), {
    cooldownDuration: options.cooldownMs ?? 30_000,
    timeoutDuration: 5_000,
  })
  return async (credential) => {
    let payload: JWTPayload
    try {
      ;({ payload } = await jwtVerify(credential, keys, {
        algorithms: ['RS256'],
        audience: settings.clientId,
        issuer: settings.issuers,
        requiredClaims: ['exp'],
      }))
    } catch (err) {
      const reason = rejection(err)
      if (reason === 'keys_unavailable') options.log?.warn({ err: { message: (err as Error).message } }, 'identity provider keys unavailable')
      throw rejected(reason)
    }
    // Some providers send the flag as the string "true".
    const verified = payload.email_verified === true || payload.email_verified === 'true'
    if (typeof payload.email !== 'string' || !payload.email.includes('@') || !verified) throw rejected('email_not_verified')
    return {
      email: payload.email,
      name: typeof payload.name === 'string' && payload.name.trim() ? payload.name.trim().slice(0, 255) : null,
      picture: typeof payload.picture === 'string' && /^https:\/\/\S+$/.test(payload.picture) && payload.picture.length <= 500 ? payload.picture : null,
    }
  }
}

function rejection(err: unknown): IdpRejection {
  if (err instanceof errors.JWTExpired) return 'expired'
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'aud') return 'audience'
    if (err.claim === 'iss') return 'issuer'
    return 'malformed'
  }
  if (
    err instanceof errors.JWSSignatureVerificationFailed ||
    err instanceof errors.JWKSNoMatchingKey ||
    err instanceof errors.JOSEAlgNotAllowed
  ) {
    return 'signature'
  }
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid || !(err instanceof errors.JOSEError)) return 'keys_unavailable'
  return 'malformed'
}

/**
 * Signs in the account with the token's email, creating it (without a password) on first use.
 * An account whose address was never proven is taken over first (email-verification.ts).
 */
export async function signInWithIdp(
  ctx: Pick<AppContext, 'config' | 'db'> & Partial<Pick<AppContext, 'credentials'>>,
  identity: IdpIdentity,
): Promise<SessionTokens & { user: User }> {
  return ctx.db.transaction(async (tx) => {
    const email = normalizeEmail(identity.email)
    const name = identity.name ?? email.split('@')[0]
    // A simultaneous first sign-in may have created the account: then it is simply read.
    await insertUser(tx, { email, name, passwordHash: null, avatarUrl: identity.picture })
    const account = await tx.one<{ id: string; is_active: boolean }>('SELECT id, is_active FROM users WHERE lower(email) = $1', [email])
    if (!account!.is_active) throw accountInactive()
    // Whoever registered this address before proving it keeps no way in.
    if (await takeOverUnverified(tx, account!.id)) ctx.credentials?.clear()
    const tokens = await startSession(ctx, tx, account!.id)
    return { ...tokens, user: (await getUser(tx, account!.id))! }
  })
}
