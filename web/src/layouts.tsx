// The frames routes render their pages in: signed-out pages, the signed-in gate (session, the
// user's preferences), the shell of a company or of the account pages, and home.
import { Navigate, Outlet, useParams } from '@tanstack/react-router'
import { ErrorText } from './components/ErrorText.tsx'
import { Shell } from './components/Shell.tsx'
import { PreferencesScope } from './lib/preferences.tsx'
import { useCompanies, useMe } from './lib/queries.ts'
import { lastCompany, useSignedIn } from './lib/session.ts'
import { SignInPage } from './pages/SignInPage.tsx'

/** Sign-in, sign-up and forgotten password: a signed-in visitor goes home instead. */
export function PublicOnly() {
  return useSignedIn() ? <Navigate to="/" replace /> : <Outlet />
}

/** Pages that need a session: the sign-in form in place without one, so the link still works after. */
export function SignedInGate() {
  const signedIn = useSignedIn()
  const me = useMe(signedIn)
  if (!signedIn) return <SignInPage />
  if (me.error) return <Problem error={me.error} />
  if (!me.data) return <div className="auth muted" role="status">Loading…</div>
  return (
    <PreferencesScope preferences={me.data.preferences ?? {}}>
      <Outlet />
    </PreferencesScope>
  )
}

/** Profile and company creation keep the last company's navigation, if this user still has it. */
export function AccountLayout() {
  const companies = useCompanies()
  const recent = companies.data?.find((c) => c.id === lastCompany())?.id ?? null
  return <Shell companyId={recent}><Outlet /></Shell>
}

export function CompanyLayout() {
  const { companyId } = useParams({ from: '/signed-in/c/$companyId' })
  return <Shell companyId={companyId} key={companyId}><Outlet /></Shell>
}

/** `/`: the last company used, else the first, else company creation. */
export function Home() {
  const companies = useCompanies()
  if (companies.error) return <Problem error={companies.error} />
  if (!companies.data) return <div className="auth muted" role="status">Loading…</div>
  const target = companies.data.find((c) => c.id === lastCompany()) ?? companies.data[0]
  return target ? <Navigate to="/c/$companyId" params={{ companyId: target.id }} replace /> : <Navigate to="/companies/new" replace />
}

export function NotFound() {
  return (
    <main className="auth">
      <div className="panel">
        <h1>There is no such page</h1>
        <p>The link may be old or mistyped. <a href="/">Go to the start page</a>.</p>
      </div>
    </main>
  )
}

function Problem({ error }: { error: unknown }) {
  return (
    <main className="auth">
      <div className="panel">
        <ErrorText error={error} />
        <button onClick={() => window.location.reload()}>Try again</button>
      </div>
    </main>
  )
}
