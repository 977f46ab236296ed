import { useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate, useSearch } from '@tanstack/react-router'
import { ErrorText } from '../components/ErrorText.tsx'
import { api } from '../lib/api.ts'
import { errorCode } from '../lib/errors.ts'
import { useMe } from '../lib/queries.ts'
import { useSubmit } from '../lib/useForm.ts'

/** The page an invitation email links to: /invitations/accept?token=... (signed in as the invited address). */
export function AcceptInvitationPage() {
  const token = useSearch({ from: '/signed-in/account/invitations/accept' }).token ?? ''
  const me = useMe()
  const client = useQueryClient()
  const navigate = useNavigate()
  const submit = useSubmit(async () => {
    const company = await api.invitations.accept(token)
    await client.invalidateQueries({ queryKey: ['companies'] })
    await navigate({ to: '/c/$companyId', params: { companyId: company.id } })
  })
  const code = errorCode(submit.error)
  return (
    <>
      <div className="page-head"><h1>Join a company</h1></div>
      <div className="panel" style={{ maxWidth: 560 }}>
        {!token && <p className="error" role="alert">This link has no invitation token. Ask for a new invitation.</p>}
        <p>You were invited to join a company on Shopfloor. You are signed in as <strong>{me.data?.email}</strong>; the invitation must be for this address.</p>
        <ErrorText error={submit.error} />
        {code === 'FORBIDDEN' && <p className="muted small">Sign out and sign in (or create an account) with the invited address, then open the link again.</p>}
        {code === 'INVALID_INVITATION' && <p className="muted small">Ask the person who invited you for a new invitation.</p>}
        <div className="actions">
          <button className="primary" onClick={() => void submit.onSubmit()} disabled={submit.pending || !token}>Join the company</button>
          <Link to="/">Not now</Link>
        </div>
      </div>
    </>
  )
}
