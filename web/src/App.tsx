// Top-level routing: public pages when signed out, the company shell when signed in.
import { type ReactNode, useEffect } from 'react'
import { ErrorText } from './components/ErrorText.tsx'
import { Shell } from './components/Shell.tsx'
import { PreferencesScope } from './lib/preferences.tsx'
import { useCompanies, useMe } from './lib/queries.ts'
import { matchPath, navigate, useLocation } from './lib/router.tsx'
import { lastCompany, useSignedIn } from './lib/session.ts'
import { ActivityPage } from './pages/ActivityPage.tsx'
import { AgentPage } from './pages/AgentPage.tsx'
import { AgentsPage } from './pages/AgentsPage.tsx'
import { ApprovalsPage } from './pages/ApprovalsPage.tsx'
import { CompanySettingsPage } from './pages/CompanySettingsPage.tsx'
import { CostsPage } from './pages/CostsPage.tsx'
import { DashboardPage } from './pages/DashboardPage.tsx'
import { ForgotPasswordPage } from './pages/ForgotPasswordPage.tsx'
import { GoalsPage } from './pages/GoalsPage.tsx'
import { InboxPage } from './pages/InboxPage.tsx'
import { NewCompanyPage } from './pages/NewCompanyPage.tsx'
import { OrgPage } from './pages/OrgPage.tsx'
import { ProfilePage } from './pages/ProfilePage.tsx'
import { ProjectsPage } from './pages/ProjectsPage.tsx'
import { ResetPasswordPage } from './pages/ResetPasswordPage.tsx'
import { RoutinesPage } from './pages/RoutinesPage.tsx'
import { RunPage } from './pages/RunPage.tsx'
import { RunsPage } from './pages/RunsPage.tsx'
import { SignInPage } from './pages/SignInPage.tsx'
import { SignUpPage } from './pages/SignUpPage.tsx'
import { TaskPage } from './pages/TaskPage.tsx'
import { TasksPage } from './pages/TasksPage.tsx'

type Params = Record<string, string>
// Pages of one company, under /c/:companyId.
const COMPANY_PAGES: [string, (p: Params) => ReactNode][] = [
  ['', () => <DashboardPage />],
  ['tasks', () => <TasksPage />],
  ['tasks/:ref', (p) => <TaskPage taskRef={p.ref} />],
  ['agents', () => <AgentsPage />],
  ['agents/:id', (p) => <AgentPage agentId={p.id} />],
  ['org', () => <OrgPage />],
  ['runs', () => <RunsPage />],
  ['runs/:id', (p) => <RunPage runId={p.id} />],
  ['inbox', () => <InboxPage />],
  ['approvals', () => <ApprovalsPage />],
  ['goals', () => <GoalsPage />],
  ['projects', () => <ProjectsPage />],
  ['routines', () => <RoutinesPage />],
  ['costs', () => <CostsPage />],
  ['activity', () => <ActivityPage />],
  ['settings', () => <CompanySettingsPage />],
]

export function App() {
  const signedIn = useSignedIn()
  const { pathname } = useLocation()
  if (pathname === '/reset-password') return <ResetPasswordPage />
  if (!signedIn) {
    if (pathname === '/sign-up') return <SignUpPage />
    if (pathname === '/forgot-password') return <ForgotPasswordPage />
    return <SignInPage />
  }
  return <SignedIn pathname={pathname} />
}

function SignedIn({ pathname }: { pathname: string }) {
  const me = useMe()
  if (me.error) return <div className="auth"><ErrorText error={me.error} /></div>
  if (!me.data) return <div className="auth muted">Loading…</div>
  return (
    <PreferencesScope preferences={me.data.preferences ?? {}}>
      <SignedInPage pathname={pathname} />
    </PreferencesScope>
  )
}

function SignedInPage({ pathname }: { pathname: string }) {
  // Pages outside a company keep the last company's navigation, if this user still has it.
  const companies = useCompanies()
  const recent = companies.data?.find((c) => c.id === lastCompany())?.id ?? null
  if (pathname === '/profile') return <Shell companyId={recent}><ProfilePage /></Shell>
  if (pathname === '/companies/new') return <Shell companyId={recent}><NewCompanyPage /></Shell>
  const company = matchCompanyPage(pathname)
  if (company) {
    return <Shell companyId={company.companyId} key={company.companyId}>{company.page}</Shell>
  }
  return <Home />
}

function matchCompanyPage(pathname: string): { companyId: string; page: ReactNode } | null {
  for (const [pattern, render] of COMPANY_PAGES) {
    const params = matchPath(`/c/:companyId/${pattern}`, pathname)
    if (params) return { companyId: params.companyId, page: render(params) }
  }
  const bare = matchPath('/c/:companyId/:unknown', pathname)
  return bare ? { companyId: bare.companyId, page: <p>There is no such page.</p> } : null
}

/** `/` and unknown paths: the last company used, else the first, else company creation. */
function Home() {
  const companies = useCompanies()
  const target = companies.data ? (companies.data.find((c) => c.id === lastCompany()) ?? companies.data[0] ?? null) : undefined
  useEffect(() => {
    if (target !== undefined) navigate(target ? `/c/${target.id}` : '/companies/new', { replace: true })
  }, [target])
  if (companies.error) return <div className="auth"><ErrorText error={companies.error} /></div>
  return <div className="auth muted">Loading…</div>
}
