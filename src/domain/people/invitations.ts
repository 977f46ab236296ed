import type { Invitation, InvitationCreate } from '../../contract/people.ts'
import type { Mailer } from '../../server/auth/mailer.ts'
import { randomToken, sha256 } from '../../server/auth/tokens.ts'
import type { AppContext } from '../../server/context.ts'
import type { Queryable } from '../../server/db/db.ts'
import { write } from '../../server/db/write.ts'
import { AppError, notFound } from '../../server/errors.ts'
import { normalizeEmail } from '../accounts/users.ts'
import type { Actor } from '../../server/actor.ts'
import { recordAudit } from '../audit/record.ts'
import { type Caller, insertMember } from '../companies/members.ts'

// Invitations to join a company by email (API-DECISIONS.md, "People"). The token works like a
// password-reset token: 32 random bytes, URL-safe, only its SHA-256 stored, used once; it is
// good for 7 days. Inviting an address again replaces its pending invitation.

export const INVITATION_TOKEN_BYTES = 32
/**
 * Every invitation token starts with this: a bare base64url token begins with "-" one time in
 * 64, and pasted on its own into `shopfloor invitations accept` it was then read as an option.
 */
export const INVITATION_TOKEN_PREFIX = 'inv_'
export const INVITATION_DAYS = 7

const invalidInvitation = () => new AppError('INVALID_INVITATION', 'This invitation was already used, revoked or has expired')

const PENDING = 'i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > now()'
const COLUMNS = `i.id, i.email, i.role, 'pending' AS status, i.expires_at, i.created_at, u.name AS invited_by_name`

/** Owners and admins manage invitations; `what` says what a member tried, for the refusal. */
function requireManager(caller: Caller, what: string): void {
  if (caller.role === 'member') throw new AppError('FORBIDDEN', `Only an owner or admin can ${what}`)
}

export function invitationLink(webAppUrl: string, token: string): string {
  return `${webAppUrl}/invitations/accept?token=${encodeURIComponent(token)}`
}

/** Pending invitations of the company, newest first. */
export function listInvitations(db: Queryable, companyId: string): Promise<Invitation[]> {
  return db.many<Invitation>(
    `SELECT ${COLUMNS} FROM invitations i LEFT JOIN users u ON u.id = i.invited_by_user_id
      WHERE i.company_id = $1 AND ${PENDING}
      ORDER BY i.created_at DESC, i.id`,
    [companyId],
  )
}

/**
 * POST /invitations: records the invitation (replacing a pending one of the same address) and
 * mails the link in the background, so the answer waits neither for the mail server nor on
 * its failure (logged without the link). A current member cannot be invited (409).
 */
export async function invite(ctx: AppContext, mailer: Mailer, companyId: string, caller: Caller, body: InvitationCreate): Promise<Invitation> {
  requireManager(caller, 'invite people')
  const email = normalizeEmail(body.email)
  const token = INVITATION_TOKEN_PREFIX + randomToken(INVITATION_TOKEN_BYTES)
  const { invitation, company, inviter } = await write(ctx, async (tx) => {
    // The company row lock serialises invitations of one company, so two at once for one
    // address replace each other instead of meeting on invitations_one_pending.
    const company = await tx.one<{ name: string }>('SELECT name FROM companies WHERE id = $1 FOR NO KEY UPDATE', [companyId])
    const member = await tx.one(
      'SELECT 1 FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.company_id = $1 AND lower(u.email) = $2',
      [companyId, email],
    )
    if (member) throw new AppError('MEMBER_EXISTS', `${email} is already a member of this company`, { email })
    await tx.query(
      `UPDATE invitations i SET revoked_at = now() WHERE company_id = $1 AND email = $2 AND accepted_at IS NULL AND revoked_at IS NULL`,
      [companyId, email],
    )
    const row = await tx.one<{ id: string }>(
      `INSERT INTO invitations (company_id, email, role, token_hash, invited_by_user_id, expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(days => $6)) RETURNING id`,
      [companyId, email, body.role, sha256(token), caller.userId, INVITATION_DAYS],
    )
    const invitation = (await tx.one<Invitation>(
      `SELECT ${COLUMNS} FROM invitations i LEFT JOIN users u ON u.id = i.invited_by_user_id WHERE i.id = $1`,
      [row!.id],
    ))!
    await recordAudit(tx, {
      companyId, actor: caller.actor, verb: 'invited', entityType: 'member', entityId: null, label: email,
      changes: { role: [null, body.role] },
    })
    return { invitation, company: company!.name, inviter: invitation.invited_by_name ?? 'Someone' }
  })
  const link = invitationLink(ctx.config.webAppUrl, token)
  void mailer
    .send({
      to: email,
      subject: `${inviter} invited you to ${company} on Shopfloor`,
      text:
        `${inviter} invited you to join ${company} on Shopfloor as ${body.role === 'admin' ? 'an admin' : 'a member'}.\n\n` +
        `Open this link within ${INVITATION_DAYS} days to accept (sign in or create an account with this address):\n${link}\n\n` +
        `If you did not expect this, ignore this message.\n`,
    })
    .catch((err: Error) => ctx.log.error({ err: { message: err.message } }, 'invitation email could not be sent'))
  return invitation
}

/** DELETE /invitations/{id}: a pending invitation stops working. */
export async function revokeInvitation(ctx: AppContext, companyId: string, caller: Caller, invitationId: string): Promise<void> {
  requireManager(caller, 'revoke invitations')
  await write(ctx, async (tx) => {
    const revoked = await tx.one<{ email: string; role: string }>(
      `UPDATE invitations i SET revoked_at = now() WHERE i.id = $1 AND i.company_id IS NOT DISTINCT FROM $2 AND ${PENDING} RETURNING email, role`,
      [invitationId, companyId],
    )
    if (!revoked) throw notFound('Invitation')
    await recordAudit(tx, {
      companyId, actor: caller.actor, verb: 'invitation_revoked', entityType: 'member', entityId: null, label: revoked.email,
      changes: { role: [revoked.role, null] },
    })
  })
}

/**
 * POST /api/invitations/accept: the signed-in person whose address was invited becomes a
 * member with the invitation's role. The guarded update uses the invitation once, whatever
 * requests race; a wrong address leaves it unused.
 */
export async function acceptInvitation(ctx: AppContext, user: { id: string; email: string; name: string }, token: string): Promise<{ companyId: string }> {
  const tokenHash = sha256(token)
  return write(ctx, async (tx) => {
    const invitation = await tx.one<{ id: string; company_id: string; email: string; role: 'admin' | 'member' }>(
      `SELECT i.id, i.company_id, i.email, i.role FROM invitations i WHERE i.token_hash = $1 AND ${PENDING} FOR UPDATE`,
      [tokenHash],
    )
    if (!invitation) throw invalidInvitation()
    if (invitation.email !== normalizeEmail(user.email)) {
      throw new AppError('FORBIDDEN', `This invitation is for another email address; sign in as ${invitation.email} to accept it`)
    }
    const member = await tx.one('SELECT 1 FROM memberships WHERE company_id = $1 AND user_id = $2', [invitation.company_id, user.id])
    if (member) throw new AppError('MEMBER_EXISTS', 'You are already a member of this company', { email: invitation.email })
    await tx.query('UPDATE invitations SET accepted_at = now(), accepted_by_user_id = $2 WHERE id = $1', [invitation.id, user.id])
    const actor: Actor = { type: 'user', userId: user.id, name: user.name }
    await insertMember(tx, invitation.company_id, actor, { id: user.id, email: user.email }, invitation.role)
    return { companyId: invitation.company_id }
  })
}
