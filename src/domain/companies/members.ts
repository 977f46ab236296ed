import { MEMBER_ROLES } from '../../contract/people.ts'
import type { Queryable } from '../../server/db/db.ts'
import type { Member, Role as MemberRole } from '../../contract/companies.ts'
import { AppError, notFound } from '../../server/errors.ts'
import { type Actor, systemActor } from '../../server/actor.ts'
import { recordAudit } from '../audit/record.ts'

// Members of a company: the one writer of the memberships table after a company's creation.
// People change them through the API (owners and admins: PATCH and DELETE
// /members/{user_id}, and invitations, src/domain/people/); operators through
// `shopfloor admin members ...` (src/cli/admin-members.ts). Every change is audited (entity
// type `member`, the member's user id) and published on no event stream (SPEC.md). Triggers
// (migration 063) tell every API process to forget cached credentials as the change commits.

export { MEMBER_ROLES, type Member, type MemberRole }

const MEMBER_COLUMNS = 'u.id AS user_id, u.name, u.email, u.avatar_url, m.role, m.created_at'

/** Every member, in the order they joined. */
export function listMembers(db: Queryable, companyId: string): Promise<Member[]> {
  return db.many<Member>(
    `SELECT ${MEMBER_COLUMNS}
       FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.company_id = $1
      ORDER BY m.created_at, u.email`,
    [companyId],
  )
}

function getMember(db: Queryable, companyId: string, userId: string): Promise<Member | null> {
  return db.one<Member>(
    `SELECT ${MEMBER_COLUMNS} FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.company_id = $1 AND m.user_id = $2`,
    [companyId, userId],
  )
}

async function audit(tx: Queryable, companyId: string, actor: Actor, verb: string, userId: string, email: string, before: MemberRole | null, after: MemberRole | null) {
  await recordAudit(tx, {
    companyId,
    actor,
    verb,
    entityType: 'member',
    entityId: userId,
    label: email,
    changes: { role: [before, after] },
  })
}

/** Adds a user to a company (the caller checked they are not a member yet). */
export async function insertMember(tx: Queryable, companyId: string, actor: Actor, user: { id: string; email: string }, role: MemberRole): Promise<void> {
  await tx.query('INSERT INTO memberships (company_id, user_id, role) VALUES ($1, $2, $3)', [companyId, user.id, role])
  await audit(tx, companyId, actor, 'member_added', user.id, user.email, null, role)
}

// --- Through the API: the rules of API-DECISIONS.md, "People" ---------------------------------

export interface Caller {
  userId: string
  role: MemberRole
  actor: Actor
}

/**
 * The member to change, locked, after the rules every change shares: only an owner or an admin
 * changes others (anyone may remove themselves), and nobody changes or removes an owner.
 */
async function changeable(tx: Queryable, companyId: string, caller: Caller, userId: string, removing: boolean): Promise<Member> {
  const self = caller.userId === userId
  if (caller.role === 'member' && !(removing && self)) {
    throw new AppError('FORBIDDEN', removing ? 'Only an owner or admin can remove other members' : 'Only an owner or admin can change roles')
  }
  const locked = await tx.one('SELECT 1 FROM memberships WHERE company_id = $1 AND user_id = $2 FOR UPDATE', [companyId, userId])
  const member = locked ? await getMember(tx, companyId, userId) : null
  if (!member) throw notFound('Member')
  if (member.role === 'owner') {
    throw new AppError('FORBIDDEN', self && removing ? 'An owner cannot leave the company' : `${member.email} is an owner: nobody changes or removes an owner`)
  }
  return member
}

/** PATCH /members/{user_id}: a new role; an admin cannot make an owner. Same role: no change. */
export async function changeMemberRole(tx: Queryable, companyId: string, caller: Caller, userId: string, role: MemberRole): Promise<Member> {
  const member = await changeable(tx, companyId, caller, userId, false)
  if (role === 'owner' && caller.role !== 'owner') throw new AppError('FORBIDDEN', 'Only an owner can make someone an owner')
  if (member.role === role) return member
  await tx.query('UPDATE memberships SET role = $3 WHERE company_id = $1 AND user_id = $2', [companyId, userId, role])
  await audit(tx, companyId, caller.actor, 'member_role_changed', userId, member.email, member.role, role)
  return { ...member, role }
}

/** DELETE /members/{user_id}. */
export async function removeMemberById(tx: Queryable, companyId: string, caller: Caller, userId: string): Promise<void> {
  const member = await changeable(tx, companyId, caller, userId, true)
  await tx.query('DELETE FROM memberships WHERE company_id = $1 AND user_id = $2', [companyId, userId])
  await audit(tx, companyId, caller.actor, 'member_removed', userId, member.email, member.role, null)
}

// --- Operator commands ------------------------------------------------------------------------

/** A refusal an operator can act on (unknown company or user, last owner...). */
export class MemberError extends Error {}

interface Target {
  companyName: string
  userId: string
  email: string
  role: MemberRole | null
}

/** Locks the company row (so two operators cannot both remove the last owner) and finds the user. */
async function target(tx: Queryable, companyId: string, email: string): Promise<Target> {
  const company = await tx.one<{ name: string }>('SELECT name FROM companies WHERE id = $1 FOR NO KEY UPDATE', [companyId])
  if (!company) throw new MemberError(`No company with id ${companyId}`)
  const user = await tx.one<{ id: string; email: string; role: MemberRole | null }>(
    `SELECT u.id, u.email, m.role
       FROM users u LEFT JOIN memberships m ON m.user_id = u.id AND m.company_id = $1
      WHERE lower(u.email) = lower($2)`,
    [companyId, email],
  )
  if (!user) throw new MemberError(`No user with email ${email}`)
  return { companyName: company.name, userId: user.id, email: user.email, role: user.role }
}

/** Refuses to leave a company without an owner. */
async function keepAnOwner(tx: Queryable, companyId: string, t: Target): Promise<void> {
  if (t.role !== 'owner') return
  const owners = await tx.one<{ n: number }>(
    `SELECT count(*)::int AS n FROM memberships WHERE company_id = $1 AND role = 'owner'`,
    [companyId],
  )
  if (owners!.n <= 1) throw new MemberError(`${t.email} is the last owner of ${t.companyName}`)
}

export async function addMember(tx: Queryable, companyId: string, email: string, role: MemberRole): Promise<void> {
  const t = await target(tx, companyId, email)
  if (t.role) throw new MemberError(`${t.email} is already a member (${t.role})`)
  await insertMember(tx, companyId, systemActor(), { id: t.userId, email: t.email }, role)
}

export async function removeMember(tx: Queryable, companyId: string, email: string): Promise<void> {
  const t = await target(tx, companyId, email)
  if (!t.role) throw new MemberError(`${t.email} is not a member`)
  await keepAnOwner(tx, companyId, t)
  await tx.query('DELETE FROM memberships WHERE company_id = $1 AND user_id = $2', [companyId, t.userId])
  await audit(tx, companyId, systemActor(), 'member_removed', t.userId, t.email, t.role, null)
}

export async function setMemberRole(tx: Queryable, companyId: string, email: string, role: MemberRole): Promise<void> {
  const t = await target(tx, companyId, email)
  if (!t.role) throw new MemberError(`${t.email} is not a member`)
  if (t.role === role) return
  if (role !== 'owner') await keepAnOwner(tx, companyId, t)
  await tx.query('UPDATE memberships SET role = $3 WHERE company_id = $1 AND user_id = $2', [companyId, t.userId, role])
  await audit(tx, companyId, systemActor(), 'member_role_changed', t.userId, t.email, t.role, role)
}
