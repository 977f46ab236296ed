import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Actor } from '../actor.ts'
import { authenticate, bearer, type Principal, type Role } from '../auth/authenticate.ts'
import type { AppContext } from '../context.ts'
import { AppError, invalidField } from '../errors.ts'
import { isUuid } from '../../contract/common.ts'

/** The caller's company and role, loaded by requireMember for /api/companies/{company_id}/... */
export interface Membership {
  companyId: string
  role: Role
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal
    membership: Membership
  }
}

/**
 * Hook for account-level routes (/api/me, keys, logout, the list of companies): a valid bearer
 * credential (access token or API key) or 401. A run credential acts inside its company only:
 * 403 here.
 */
export function requireAuth(ctx: AppContext) {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    request.principal = (await authenticate(ctx, bearer(request.headers.authorization))).principal
    if (request.principal.run) throw new AppError('FORBIDDEN', 'A run credential cannot use account routes')
  }
}

/** Hook: a valid run credential (its run still `running`, else 401); any other credential is 403. */
export function requireRun(ctx: AppContext) {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    request.principal = (await authenticate(ctx, bearer(request.headers.authorization))).principal
    if (!request.principal.run) throw new AppError('FORBIDDEN', 'Only a run credential has a run')
  }
}

/** Hook (after requireAuth): the caller signed in with a password session, not an API key. */
export async function requireSession(request: FastifyRequest): Promise<void> {
  if (request.principal.via !== 'session') {
    throw new AppError('SESSION_REQUIRED', 'This action requires a password session, not an API key')
  }
}

/**
 * Hook (after requireAuth) for making a company: an API key limited to one company cannot, since
 * it would make one it cannot reach, and a runner's key has no business doing it.
 */
export async function requireUnlimited(request: FastifyRequest): Promise<void> {
  if (request.principal.keyCompanyId) {
    throw new AppError('FORBIDDEN', 'This API key is limited to one company and cannot create companies')
  }
}

/**
 * Hook for /api/companies/{company_id}/...: a valid bearer credential (else 401), a valid
 * company id (else 422) and membership of that company (else 404 Company not found). The
 * credential and the membership are read in one statement.
 */
export function requireMember(ctx: AppContext) {
  return async (request: FastifyRequest) => {
    const credential = bearer(request.headers.authorization)
    const companyId = (request.params as Record<string, string>).company_id
    const valid = isUuid(companyId)
    const { principal, role } = await authenticate(ctx, credential, valid ? companyId : null)
    request.principal = principal
    if (!valid) throw invalidField('path', 'company_id', 'Input should be a valid UUID', companyId)
    if (!role) throw new AppError('NOT_FOUND', 'Company not found')
    request.membership = { companyId, role }
  }
}

/**
 * Who the request acts as, for the audit trail and the records it writes: the signed-in person,
 * or, with a run credential, the run's agent (as a write with that `run_id` would be).
 */
export function userActor(request: FastifyRequest): Actor {
  const { run, user } = request.principal
  if (run) return { type: 'agent', agentId: run.agentId, name: run.agentName, runId: run.runId }
  return { type: 'user', userId: user.id, name: user.name }
}
