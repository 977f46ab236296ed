import type { Queryable } from '../db/db.ts'
import { AppError } from '../errors.ts'
import type { CredentialCache } from './credential-cache.ts'
import { type RunTokenClaims, sha256, verifyRunToken, verifyToken } from './tokens.ts'

/** The person behind a request, and how they proved it. */
export interface Principal {
  /** With a run credential: the person whose runner claimed the run (never the agent's authority). */
  user: { id: string; name: string; email: string }
  via: 'session' | 'key' | 'run'
  keyId: string | null
  /** Set for an API key limited to one company: the only company it acts in (GET /api/companies lists that one alone). */
  keyCompanyId?: string
  /** Set for a run credential: the request acts as this run's agent, with its rights (domain/agents/rights.ts). */
  run?: RunCredential
}

/** The run a run credential belongs to; only ever set while that run is `running`. */
export interface RunCredential {
  runId: string
  agentId: string
  agentName: string
  companyId: string
}

const API_KEY_PREFIXES = ['svc_live_', 'svc_test_']

export const authRequired = () => new AppError('AUTH_REQUIRED', 'Not authenticated')
export const invalidToken = () => new AppError('INVALID_TOKEN', 'Could not validate credentials')

/** The bearer value of an Authorization header, or AUTH_REQUIRED. */
export function bearer(header: string | undefined): string {
  const match = /^Bearer\s+(\S.*)$/i.exec(header ?? '')
  if (!match) throw authRequired()
  return match[1].trim()
}

export type Role = 'owner' | 'admin' | 'member'

/** A principal and the role it holds in the company asked about (null: not a member). */
export interface Authenticated {
  principal: Principal
  role: Role | null
}

/** What authenticate needs: the database, the token secret, the cache of answers. */
export interface AuthContext {
  db: Queryable
  config: { jwtSecret: string }
  credentials: CredentialCache<Authenticated>
}

/**
 * Resolves a bearer credential: an API key (svc_live_/svc_test_) or an access token.
 * Throws INVALID_TOKEN for anything expired, revoked, malformed or belonging to an inactive user.
 * With a companyId the caller's membership there is read by the same statement, so a company
 * request costs one round trip for both, and none while the answer is cached.
 */
export async function authenticate(ctx: AuthContext, credential: string, companyId: string | null = null): Promise<Authenticated> {
  if (API_KEY_PREFIXES.some((p) => credential.startsWith(p))) {
    const hash = sha256(credential)
    return cached(ctx.credentials, `key ${hash} ${companyId}`, () => authenticateKey(ctx.db, hash, companyId))
  }
  // The signature and expiry are checked on every request; only the database answer is cached.
  const claims = verifyToken(ctx.config.jwtSecret, credential, 'access')
  if (!claims) {
    const run = verifyRunToken(ctx.config.jwtSecret, credential)
    if (run) return authenticateRun(ctx.db, run, companyId)
    throw invalidToken()
  }
  return cached(ctx.credentials, `session ${claims.sub} ${claims.iat} ${companyId}`, () => authenticateSession(ctx.db, claims, companyId))
}

async function cached(cache: CredentialCache<Authenticated>, key: string, lookup: () => Promise<{ answer: Authenticated; until?: number }>): Promise<Authenticated> {
  const hit = cache.get(key)
  if (hit) return hit
  const version = cache.version
  const { answer, until } = await lookup()
  cache.remember(key, version, answer, until)
  return answer
}

async function authenticateSession(db: Queryable, claims: { sub: string; iat: number }, companyId: string | null) {
  // An access token issued before the last password reset (compared in whole seconds) is void.
  const row = await db.one<Principal['user'] & { role: Role | null }>(
    `SELECT u.id, u.name, u.email, m.role
       FROM users u LEFT JOIN memberships m ON m.user_id = u.id AND m.company_id = $3::uuid
      WHERE u.id = $1 AND u.is_active
        AND (u.password_changed_at IS NULL OR $2 >= floor(extract(epoch FROM u.password_changed_at)))`,
    [claims.sub, claims.iat, companyId],
  )
  if (!row) throw invalidToken()
  const principal: Principal = { user: { id: row.id, name: row.name, email: row.email }, via: 'session', keyId: null }
  return { answer: { principal, role: row.role } }
}

async function authenticateKey(db: Queryable, keyHash: string, companyId: string | null) {
  // The key's hash is unique, so this is one index lookup. A key created before its owner's
  // last password reset (to the second) stops working, like a revoked one.
  // A key limited to one company is a stranger to every other: no role there.
  const row = await db.one<Principal['user'] & { key_id: string; key_company_id: string | null; touch: boolean; role: Role | null; expires_at: string | null }>(
    `SELECT u.id, u.name, u.email, k.id AS key_id, k.company_id AS key_company_id, k.expires_at,
            CASE WHEN k.company_id IS NULL OR k.company_id = $2::uuid THEN m.role END AS role,
            (k.last_used IS NULL OR k.last_used < now() - interval '1 minute') AS touch
       FROM api_keys k JOIN users u ON u.id = k.user_id
            LEFT JOIN memberships m ON m.user_id = u.id AND m.company_id = $2::uuid
      WHERE k.key_hash = $1
        AND k.revoked_at IS NULL
        AND (k.expires_at IS NULL OR k.expires_at > now())
        AND u.is_active
        AND (u.password_changed_at IS NULL
             OR date_trunc('second', k.created_at) >= date_trunc('second', u.password_changed_at))`,
    [keyHash, companyId],
  )
  if (!row) throw invalidToken()
  // last_used moves at most once a minute, so a busy key does not write on every request; a
  // cached key is looked up again within CredentialCache's lifetime, well inside that minute.
  if (row.touch) {
    await db.query(
      `UPDATE api_keys SET last_used = now()
        WHERE id = $1 AND (last_used IS NULL OR last_used < now() - interval '1 minute')`,
      [row.key_id],
    )
  }
  const principal: Principal = { user: { id: row.id, name: row.name, email: row.email }, via: 'key', keyId: row.key_id }
  if (row.key_company_id) principal.keyCompanyId = row.key_company_id
  return { answer: { principal, role: row.role }, until: row.expires_at ? Date.parse(row.expires_at) : undefined }
}

/**
 * A run credential holds while its run is `running` (finishing, cancelling, expiry and the
 * agent's termination end it at once) and while the person whose runner claimed it is active
 * and a member of the run's company. It is checked on every request, never cached: one lookup
 * by primary keys. Its company is the run's; any other company answers as for a stranger.
 * Agent and company are compared in a form no index takes, and the status as a value the
 * planner sees only at execution (docs/ARCHITECTURE.md, domain/runs/model.ts
 * foundRunIsRunning), so the run is found by its primary key whatever the statistics say.
 */
async function authenticateRun(db: Queryable, claims: RunTokenClaims, companyId: string | null): Promise<Authenticated> {
  const row = await db.one<Principal['user'] & { agent_name: string }>(
    `SELECT u.id, u.name, u.email, a.name AS agent_name
       FROM runs r
       JOIN agents a ON a.id = r.agent_id AND a.status <> 'terminated'
       JOIN users u ON u.id = $4 AND u.is_active
       JOIN memberships m ON m.user_id = u.id AND m.company_id = r.company_id
      WHERE r.id = $1 AND r.agent_id IS NOT DISTINCT FROM $2 AND r.company_id IS NOT DISTINCT FROM $3 AND r.status = (SELECT 'running'::text)`,
    [claims.sub, claims.agent, claims.company, claims.user],
  )
  if (!row) throw invalidToken()
  const principal: Principal = {
    user: { id: row.id, name: row.name, email: row.email },
    via: 'run',
    keyId: null,
    run: { runId: claims.sub, agentId: claims.agent, agentName: row.agent_name, companyId: claims.company },
  }
  // What the agent may do is decided by its rights, not by the person's role: `member` is the floor.
  return { principal, role: companyId === claims.company ? 'member' : null }
}
