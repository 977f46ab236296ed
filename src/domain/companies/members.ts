import type { Queryable } from '../../server/db/db.ts'
import type { Member, Role as MemberRole } from '../../contract/companies.ts'
import { recordAudit, systemActor } from '../audit/record.ts'

// Members of a company. The API only lists them; operators add, remove and change roles with
// `shopfloor admin members ...` (src/cli/admin-members.ts), which calls the functions below.

export { MEMBER_ROLES, type Member, type Role as MemberRole } from '../../contract/companies.ts'

/** Every member, in the order they joined. */
export function listMembers(db: Queryable, companyId: string): Promise<Member[]> {
  return db.many<Member>(
    `SELECT u.id AS user_id, u.name, u.email, u.avatar_url, m.role, m.created_at
       FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.company_id = $1
      ORDER BY m.created_at, u.email`,
    [companyId],
  )
}

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

async function audit(tx: Queryable, companyId: string, verb: string, email: string, before: MemberRole | null, after: MemberRole | null) {
  await recordAudit(tx, {
    companyId,
    actor: systemActor(),
    verb,
    entityType: 'company',
    entityId: companyId,
    label: email,
    changes: { role: [before, after] },
  })
}

export async function addMember(tx: Queryable, companyId: string, email: string, role: MemberRole): Promise<void> {
  const t = await target(tx, companyId, email)
  if (t.role) throw new MemberError(`${t.email} is already a member (${t.role})`)
  await tx.query('INSERT INTO memberships (company_id, user_id, role) VALUES ($1, $2, $3)', [companyId, t.userId, role])
  await audit(tx, companyId, 'member_added', t.email, null, role)
}

export async function removeMember(tx: Queryable, companyId: string, email: string): Promise<void> {
  const t = await target(tx, companyId, email)
  if (!t.role) throw new MemberError(`${t.email} is not a member`)
  await keepAnOwner(tx, companyId, t)
  await tx.query('DELETE FROM memberships WHERE company_id = $1 AND user_id = $2', [companyId, t.userId])
  await audit(tx, companyId, 'member_removed', t.email, t.role, null)
}

export async function setMemberRole(tx: Queryable, companyId: string, email: string, role: MemberRole): Promise<void> {
  const t = await target(tx, companyId, email)
  if (!t.role) throw new MemberError(`${t.email} is not a member`)
  if (t.role === role) return
  if (role !== 'owner') await keepAnOwner(tx, companyId, t)
  await tx.query('UPDATE memberships SET role = $3 WHERE company_id = $1 AND user_id = $2', [companyId, t.userId, role])
  await audit(tx, companyId, 'member_role_changed', t.email, t.role, role)
}
