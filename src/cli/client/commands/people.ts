// People of the current company: members (list, change a role, remove) and invitations by
// email (invite, list, revoke, accept). Members are named by email, name or id.
import type { Member, Role } from '../../../client/index.ts'
import { isUuid } from '../../../contract/common.ts'
import { type Cli, type GroupSpec, text } from '../cli.ts'
import { CliError, EXIT, UsageError } from '../errors.ts'
import { date, plural, table, time } from '../format.ts'

const ROLES: readonly Role[] = ['owner', 'admin', 'member']

function role(value: string | undefined, allowed: readonly string[]): Role {
  const wanted = (value ?? '').toLowerCase()
  if (!allowed.includes(wanted)) throw new UsageError(`the role must be one of ${allowed.join(', ')}, got "${value ?? ''}"`)
  return wanted as Role
}

/** A member by email, name or user id (case-insensitive); an ambiguous name is an error. */
async function findMember(cli: Cli, companyId: string, ref: string): Promise<Member> {
  const members = await cli.client.members.list(companyId)
  const wanted = ref.toLowerCase()
  const byKey = members.filter((m) => m.user_id === wanted || m.email.toLowerCase() === wanted)
  const matches = byKey.length ? byKey : members.filter((m) => m.name.toLowerCase() === wanted)
  if (matches.length === 1) return matches[0]
  if (matches.length === 0) throw new CliError('NOT_FOUND', `Member not found: ${ref}`, EXIT.notFound)
  const listed = matches.map((m) => `${m.name} <${m.email}>`).join(', ')
  throw new CliError('AMBIGUOUS', `"${ref}" matches ${plural(matches.length, 'member')}: ${listed}. Type the email`, EXIT.conflict)
}

export const members: GroupSpec = {
  name: 'members',
  summary: 'People of the company: list, change a role, remove',
  commands: [
    {
      name: 'list',
      summary: 'List the members and their roles',
      async run(cli) {
        const rows = await cli.client.members.list(await cli.companyId())
        await cli.print(rows, () =>
          table(rows, [
            { header: 'name', value: (m) => m.name },
            { header: 'email', value: (m) => m.email },
            { header: 'role', value: (m) => m.role },
            { header: 'joined', value: (m) => date(m.created_at) },
          ]),
        )
      },
    },
    {
      name: 'role',
      summary: "Change a member's role (owners and admins; only an owner makes an owner)",
      args: ['<member>', '<role>'],
      notes: 'MEMBER is an email, a name or a user id. ROLE is owner, admin or member. Nobody changes an owner.',
      async run(cli, { args }) {
        const companyId = await cli.companyId()
        const wanted = role(args.role, ROLES)
        const member = await findMember(cli, companyId, args.member!)
        const updated = await cli.client.members.setRole(companyId, member.user_id, wanted)
        await cli.print(updated, () => `${updated.name} <${updated.email}> is now ${updated.role}`)
      },
    },
    {
      name: 'remove',
      summary: 'Remove a member (owners and admins); anyone but an owner may remove themselves',
      args: ['<member>'],
      notes: 'MEMBER is an email, a name or a user id. Their access to the company ends at once.',
      confirm: (a) => `Remove ${a.member} from the company?`,
      async run(cli, { args }) {
        const companyId = await cli.companyId()
        const member = await findMember(cli, companyId, args.member!)
        await cli.client.members.remove(companyId, member.user_id)
        await cli.print({ removed: member }, () => `Removed ${member.name} <${member.email}>`)
      },
    },
  ],
}

/** The token of an invitation link, or the token itself. */
export function invitationToken(value: string): string {
  const match = /[?&]token=([^&\s]+)/.exec(value)
  return match ? decodeURIComponent(match[1]) : value.trim()
}

export const invitations: GroupSpec = {
  name: 'invitations',
  summary: 'Invite people by email: invite, list, revoke, accept',
  commands: [
    {
      name: 'create',
      summary: 'Invite someone by email (owners and admins); the link is emailed to them',
      args: ['<email>'],
      options: [{ name: 'role', value: 'ROLE', help: 'admin or member (default member)' }],
      async run(cli, { args, options }) {
        const companyId = await cli.companyId()
        const invitation = await cli.client.invitations.create(companyId, {
          email: args.email!,
          role: role(text(options, 'role') ?? 'member', ['admin', 'member']) as 'admin' | 'member',
        })
        await cli.print(invitation, () =>
          `Invited ${invitation.email} as ${invitation.role}; the link was emailed and works until ${time(invitation.expires_at)} UTC`)
      },
    },
    {
      name: 'list',
      summary: 'List pending invitations, newest first',
      async run(cli) {
        const rows = await cli.client.invitations.list(await cli.companyId())
        await cli.print(rows, () =>
          table(rows, [
            { header: 'email', value: (i) => i.email },
            { header: 'role', value: (i) => i.role },
            { header: 'invited by', value: (i) => i.invited_by_name },
            { header: 'sent', value: (i) => time(i.created_at) },
            { header: 'expires', value: (i) => time(i.expires_at) },
          ]),
        )
      },
    },
    {
      name: 'revoke',
      summary: 'Revoke a pending invitation (owners and admins)',
      args: ['<email>'],
      notes: 'EMAIL is the invited address (or the invitation id).',
      confirm: (a) => `Revoke the invitation of ${a.email}?`,
      async run(cli, { args }) {
        const companyId = await cli.companyId()
        const ref = args.email!.toLowerCase()
        const pending = await cli.client.invitations.list(companyId)
        const invitation = pending.find((i) => i.email === ref || (isUuid(ref) && i.id === ref))
        if (!invitation) throw new CliError('NOT_FOUND', `No pending invitation for ${args.email}`, EXIT.notFound)
        await cli.client.invitations.revoke(companyId, invitation.id)
        await cli.print({ revoked: invitation }, () => `Revoked the invitation of ${invitation.email}`)
      },
    },
    {
      name: 'accept',
      summary: 'Join a company with an invitation (signed in as the invited address)',
      args: ['<link>'],
      notes: 'LINK is the link from the email, or just its token. Needs a session ("shopfloor login"), not an API key.',
      async run(cli, { args }) {
        const company = await cli.client.invitations.accept(invitationToken(args.link!))
        if (!cli.config.profile(cli.url).company_id) cli.config.update(cli.url, { company_id: company.id, company_name: company.name })
        await cli.print(company, () => `Joined ${company.name} (${company.task_prefix}) as ${company.role}`)
      },
    },
  ],
}
