// Every page of the app as a typed TanStack Router route. Pages are loaded on demand (one chunk
// per page), so the first load carries only the shell. Search parameters are validated here, so a
// page reads them typed with `useSearch({ from })` and a link writes them typed.
import { createRootRoute, createRoute, createRouter, lazyRouteComponent, Outlet } from '@tanstack/react-router'
import { APPROVAL_STATUSES, RUN_STATUSES } from './lib/search.ts'
import type { ApprovalStatus, RunStatus } from '#src/client/types.ts'
import { AccountLayout, CompanyLayout, Home, NotFound, PublicOnly, SignedInGate } from './layouts.tsx'
import { cleanTaskSearch } from './components/tasks/filters.ts'
// Part of the first load anyway: the gate shows it in place of any page when signed out.
import { SignInPage } from './pages/SignInPage.tsx'

const page = <M extends Record<string, unknown>>(load: () => Promise<M>, name: keyof M & string) => lazyRouteComponent(load, name)

const rootRoute = createRootRoute({ component: Outlet, notFoundComponent: NotFound })

// Signed-out pages; a signed-in visitor of the first three goes home.
const publicOnly = createRoute({ getParentRoute: () => rootRoute, id: 'public', component: PublicOnly })
const signIn = createRoute({ getParentRoute: () => publicOnly, path: '/sign-in', component: SignInPage })
const signUp = createRoute({ getParentRoute: () => publicOnly, path: '/sign-up', component: page(() => import('./pages/SignUpPage.tsx'), 'SignUpPage') })
const forgot = createRoute({ getParentRoute: () => publicOnly, path: '/forgot-password', component: page(() => import('./pages/ForgotPasswordPage.tsx'), 'ForgotPasswordPage') })
const reset = createRoute({
  getParentRoute: () => rootRoute,
  path: '/reset-password',
  validateSearch: (search: Record<string, unknown>): { token?: string } => (typeof search.token === 'string' ? { token: search.token } : {}),
  component: page(() => import('./pages/ResetPasswordPage.tsx'), 'ResetPasswordPage'),
})

// Everything else needs a session; without one the sign-in form shows in place, keeping the link.
const signedIn = createRoute({ getParentRoute: () => rootRoute, id: 'signed-in', component: SignedInGate })
const home = createRoute({ getParentRoute: () => signedIn, path: '/', component: Home })
const account = createRoute({ getParentRoute: () => signedIn, id: 'account', component: AccountLayout })
const profile = createRoute({ getParentRoute: () => account, path: '/profile', component: page(() => import('./pages/ProfilePage.tsx'), 'ProfilePage') })
const acceptInvitation = createRoute({
  getParentRoute: () => account,
  path: '/invitations/accept',
  validateSearch: (search: Record<string, unknown>): { token?: string } => (typeof search.token === 'string' ? { token: search.token } : {}),
  component: page(() => import('./pages/AcceptInvitationPage.tsx'), 'AcceptInvitationPage'),
})
const newCompany = createRoute({ getParentRoute: () => account, path: '/companies/new', component: page(() => import('./pages/NewCompanyPage.tsx'), 'NewCompanyPage') })

const company = createRoute({ getParentRoute: () => signedIn, path: '/c/$companyId', component: CompanyLayout })
const at = <P extends string>(path: P) => ({ getParentRoute: () => company, path })

/** `?new=1`: the page opens its new-record dialog (the palette's "Hire an agent", "New routine"). */
const opensNew = (s: Record<string, unknown>): { new?: '1' } => (String(s.new) === '1' ? { new: '1' } : {})

const companyRoutes = [
  createRoute({ ...at('/'), component: page(() => import('./pages/DashboardPage.tsx'), 'DashboardPage') }),

  createRoute({ ...at('start'), component: page(() => import('./pages/StartPage.tsx'), 'StartPage') }),
  createRoute({ ...at('inbox'), component: page(() => import('./pages/InboxPage.tsx'), 'InboxPage') }),
  createRoute({ ...at('tasks'), validateSearch: cleanTaskSearch, component: page(() => import('./pages/TasksPage.tsx'), 'TasksPage') }),
  createRoute({ ...at('tasks/$taskRef'), component: page(() => import('./pages/TaskPage.tsx'), 'TaskPage') }),
  createRoute({ ...at('agents'), validateSearch: opensNew, component: page(() => import('./pages/AgentsPage.tsx'), 'AgentsPage') }),
  createRoute({ ...at('agents/$agentId'), component: page(() => import('./pages/AgentPage.tsx'), 'AgentPage') }),
  createRoute({ ...at('org'), component: page(() => import('./pages/OrgPage.tsx'), 'OrgPage') }),
  createRoute({
    ...at('runs'),
    validateSearch: (s: Record<string, unknown>): { status?: RunStatus; agent_id?: string } => ({
      ...(RUN_STATUSES.includes(s.status as RunStatus) ? { status: s.status as RunStatus } : {}),
      ...(typeof s.agent_id === 'string' && s.agent_id ? { agent_id: s.agent_id } : {}),
    }),
    component: page(() => import('./pages/RunsPage.tsx'), 'RunsPage'),
  }),
  createRoute({ ...at('runs/$runId'), component: page(() => import('./pages/RunPage.tsx'), 'RunPage') }),
  createRoute({
    ...at('approvals'),
    // Pending unless the link says otherwise; `all` lists every status.
    validateSearch: (s: Record<string, unknown>): { status?: ApprovalStatus | 'all' } =>
      s.status === 'all' || APPROVAL_STATUSES.includes(s.status as ApprovalStatus) ? { status: s.status as ApprovalStatus | 'all' } : {},
    component: page(() => import('./pages/ApprovalsPage.tsx'), 'ApprovalsPage'),
  }),
  createRoute({ ...at('goals'), component: page(() => import('./pages/GoalsPage.tsx'), 'GoalsPage') }),
  createRoute({ ...at('projects'), component: page(() => import('./pages/ProjectsPage.tsx'), 'ProjectsPage') }),
  createRoute({ ...at('routines'), validateSearch: opensNew, component: page(() => import('./pages/RoutinesPage.tsx'), 'RoutinesPage') }),
  createRoute({
    ...at('costs'),
    validateSearch: (s: Record<string, unknown>): { month?: string } => (typeof s.month === 'string' && /^\d{4}-\d{2}$/.test(s.month) ? { month: s.month } : {}),
    component: page(() => import('./pages/CostsPage.tsx'), 'CostsPage'),
  }),
  createRoute({ ...at('runners'), component: page(() => import('./pages/RunnersPage.tsx'), 'RunnersPage') }),
  createRoute({ ...at('webhooks'), component: page(() => import('./pages/WebhooksPage.tsx'), 'WebhooksPage') }),
  createRoute({ ...at('activity'), component: page(() => import('./pages/ActivityPage.tsx'), 'ActivityPage') }),
  createRoute({ ...at('settings'), component: page(() => import('./pages/CompanySettingsPage.tsx'), 'CompanySettingsPage') }),
  createRoute({
    ...at('documents'),
    validateSearch: (s: Record<string, unknown>): { q?: string; tag?: string; doc?: string } => ({
      ...(typeof s.q === 'string' && s.q ? { q: s.q.slice(0, 500) } : {}),
      ...(typeof s.tag === 'string' && s.tag ? { tag: s.tag } : {}),
      ...(typeof s.doc === 'string' && s.doc ? { doc: s.doc } : {}),
    }),
    component: page(() => import('./pages/DocumentsPage.tsx'), 'DocumentsPage'),
  }),
] as const

const routeTree = rootRoute.addChildren([
  publicOnly.addChildren([signIn, signUp, forgot]),
  reset,
  signedIn.addChildren([home, account.addChildren([profile, newCompany, acceptInvitation]), company.addChildren(companyRoutes)]),
])

export const router = createRouter({
  routeTree,
  defaultPreload: 'intent',
  scrollRestoration: true,
  // Search values stay plain text in the URL (`?q=launch&status=todo,blocked`), as people type them.
  stringifySearch: (search) => {
    const params = new URLSearchParams()
    for (const [key, value] of Object.entries(search)) if (value !== undefined && value !== '') params.set(key, String(value))
    const text = params.toString()
    return text ? `?${text}` : ''
  },
  // A repeated key (`status=todo&status=blocked`, as older links have it) reads as one list.
  parseSearch: (text) => {
    const search: Record<string, string> = {}
    for (const [key, value] of new URLSearchParams(text)) search[key] = key in search ? `${search[key]},${value}` : value
    return search
  },
})

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router
  }
}
