// The company's people: members with their roles, pending invitations, and inviting someone by
// email. Owners and admins manage; nobody changes or removes an owner, and an admin cannot make
// one (API-DECISIONS.md, "People"); the server's refusal is shown in words if a rule is missed.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import type { Company, Invitation, Member, Role } from '#src/client/types.ts'
import { api } from '../../lib/api.ts'
import { humanize } from '../../lib/format.ts'
import { useFormat } from '../../lib/preferences.tsx'
import { keys, useMe, useMembers } from '../../lib/queries.ts'
import { useForm, useSubmit } from '../../lib/useForm.ts'
import { ErrorText } from '../ErrorText.tsx'
import { Field } from '../form.tsx'

export function People({ company }: { company: Company }) {
  const client = useQueryClient()
  const format = useFormat()
  const me = useMe()
  const members = useMembers(company.id)
  const canManage = company.role === 'owner' || company.role === 'admin'
  const invitations = useQuery({ queryKey: keys.company(company.id, 'company', 'invitations'), queryFn: () => api.invitations.list(company.id), enabled: canManage })
  const refresh = () => client.invalidateQueries({ queryKey: keys.company(company.id, 'company') })
  const setRole = useMutation({ mutationFn: ({ userId, role }: { userId: string; role: Role }) => api.members.setRole(company.id, userId, role), onSuccess: refresh })
  const remove = useMutation({ mutationFn: (userId: string) => api.members.remove(company.id, userId), onSuccess: refresh })
  // What became of the last invitation sent or revoked here: a revoked one is no longer "emailed".
  const [note, setNote] = useState<string | null>(null)
  const revoke = useMutation({
    mutationFn: (invitation: Invitation) => api.invitations.revoke(company.id, invitation.id),
    onSuccess(_answer, invitation) {
      setNote(`The invitation to ${invitation.email} was revoked: its link no longer works.`)
      return refresh()
    },
  })
  const roles: Role[] = company.role === 'owner' ? ['owner', 'admin', 'member'] : ['admin', 'member']
  const editable = (m: Member) => canManage && m.role !== 'owner'

  return (
    <section className="panel" aria-label="People">
      <h2>People</h2>
      <ErrorText error={members.error ?? setRole.error ?? remove.error ?? revoke.error} />
      <div className="table-wrap">
        <table className="stack">
          <thead><tr><th>Name</th><th>Email</th><th>Role</th><th className="hide-phone">Since</th><th /></tr></thead>
          <tbody>
            {members.data?.map((m) => (
              <tr key={m.user_id} aria-label={m.name}>
                <td className="free title-cell">{m.name}{m.user_id === me.data?.id && <span className="muted"> (you)</span>}</td>
                <td data-label="Email" className="free">{m.email}</td>
                <td data-label="Role">
                  {editable(m) ? (
                    <select aria-label={`Role of ${m.name}`} value={m.role} style={{ width: 'auto' }} onChange={(e) => setRole.mutate({ userId: m.user_id, role: e.target.value as Role })}>
                      {roles.map((r) => <option key={r} value={r}>{humanize(r)}</option>)}
                    </select>
                  ) : humanize(m.role)}
                </td>
                <td className="hide-phone">{format.date(m.created_at)}</td>
                <td>
                  {editable(m) && (
                    <button className="link danger small" onClick={() => window.confirm(`Remove ${m.name} from ${company.name}?`) && remove.mutate(m.user_id)}>
                      {m.user_id === me.data?.id ? 'Leave' : 'Remove'}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {canManage ? (
        <>
          {invitations.data && invitations.data.length > 0 && (
            <>
              <h3>Invited</h3>
              <ul className="plain">
                {invitations.data.map((inv) => (
                  <li key={inv.id} className="row small">
                    <span>{inv.email}</span><span className="muted">as {humanize(inv.role)} · expires {format.relative(inv.expires_at)}</span>
                    <button className="link danger small" onClick={() => window.confirm(`Revoke the invitation of ${inv.email}? Its link stops working.`) && revoke.mutate(inv)} aria-label={`Revoke the invitation of ${inv.email}`}>Revoke</button>
                  </li>
                ))}
              </ul>
            </>
          )}
          {note && <p className="notice small" role="status">{note}</p>}
          <InviteForm companyId={company.id} onInvited={(invitation) => { setNote(`Invitation emailed to ${invitation.email}. The link works for 7 days.`); void refresh() }} />
        </>
      ) : (
        <p className="muted small">Owners and admins invite people and change roles.</p>
      )}
    </section>
  )
}

function InviteForm({ companyId, onInvited }: { companyId: string; onInvited: (invitation: Invitation) => void }) {
  const form = useForm({ email: '', role: 'member' })
  const submit = useSubmit(async () => {
    const invitation = await api.invitations.create(companyId, { email: form.values.email.trim(), role: form.values.role as 'admin' | 'member' })
    form.reset()
    onInvited(invitation)
  })
  return (
    <form onSubmit={submit.onSubmit} style={{ marginTop: 12 }} aria-label="Invite someone">
      <ErrorText error={submit.error} />
      <div className="form-grid">
        <Field label="Invite by email"><input type="email" required {...form.bind('email')} /></Field>
        <Field label="As">
          <select {...form.bind('role')}><option value="member">Member</option><option value="admin">Admin</option></select>
        </Field>
      </div>
      <button className="primary" type="submit" disabled={submit.pending}>Send invitation</button>
    </form>
  )
}
