import type { Queryable } from '../server/db/db.ts'
import { isUuid } from '../contract/common.ts'
import {
  addMember, MEMBER_ROLES, MemberError, type MemberRole, removeMember, setMemberRole,
} from '../domain/companies/members.ts'
import type { AdminCommand } from './admin-command.ts'

// `shopfloor admin members add|remove|role COMPANY_ID EMAIL [owner|admin|member]`: the API has
// no endpoint for members, so operators manage them here. Each change is one transaction with
// its audit event (actor `system`); a company always keeps at least one owner.

const USAGE = 'Usage: shopfloor admin members add|remove|role COMPANY_ID EMAIL [owner|admin|member]'

/** How a subcommand takes the role: `add` defaults to member, `role` needs one, `remove` has none. */
type RoleArg = 'default-member' | 'required' | 'none'
type Apply = (tx: Queryable, companyId: string, email: string, role: MemberRole) => Promise<void>

function command(roleArg: RoleArg, apply: Apply, done: string): AdminCommand {
  return async (db, args, out) => {
    const [companyId, email, given, ...extra] = args
    const role = (given ?? (roleArg === 'default-member' ? 'member' : undefined)) as MemberRole | undefined
    const roleOk = roleArg === 'none' ? given === undefined : role !== undefined && MEMBER_ROLES.includes(role)
    if (!isUuid(companyId) || !email || !roleOk || extra.length) {
      out(USAGE)
      return 2
    }
    try {
      await db.transaction((tx) => apply(tx, companyId, email, role ?? 'member'))
    } catch (err) {
      if (!(err instanceof MemberError)) throw err
      out(err.message)
      return 1
    }
    out(`${done}: ${email}${roleArg === 'none' ? '' : ` (${role})`}`)
    return 0
  }
}

export const memberCommands: Record<string, AdminCommand> = {
  add: command('default-member', addMember, 'Added'),
  remove: command('none', (tx, companyId, email) => removeMember(tx, companyId, email), 'Removed'),
  role: command('required', setMemberRole, 'Role set'),
}
