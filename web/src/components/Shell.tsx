// The frame of every signed-in page: the sidebar (collapsible, a drawer on phones), the top bar
// with the company switcher, the live indicator and the account links, and the page itself.
import { useQueryClient } from '@tanstack/react-query'
import {
  Activity, Bot, CircleCheck, CircleDollarSign, Ellipsis, FileText, FolderKanban, Inbox, LayoutDashboard, ListTodo, type LucideIcon, Menu, Network, Play,
  Repeat, Search, Server, Settings, Target,
} from 'lucide-react'
import { type ReactNode, useEffect, useRef, useState } from 'react'
import { CompanyContext } from '../lib/company.ts'
import { useLiveEvents } from '../lib/live.ts'
import { useSavePreferences } from '../lib/preferences.tsx'
import { useAgents, useInbox, useMe } from '../lib/queries.ts'
import { Link, useLocation, useNavigate } from '@tanstack/react-router'
import { rememberCompany, signOut } from '../lib/session.ts'
import { CommandPalette } from './CommandPalette.tsx'
import { CompanySwitcher } from './CompanySwitcher.tsx'
import { ErrorBoundary } from './ErrorBoundary.tsx'
import { LiveIndicator } from './LiveIndicator.tsx'
import { UserAvatar } from './UserAvatar.tsx'

// Icons from lucide (imported one by one, so only these are in the bundle).
const NAV: { path: string; label: string; icon: LucideIcon }[] = [
  { path: '', label: 'Dashboard', icon: LayoutDashboard },
  { path: 'inbox', label: 'Inbox', icon: Inbox },
  { path: 'tasks', label: 'Tasks', icon: ListTodo },
  { path: 'agents', label: 'Agents', icon: Bot },
  { path: 'org', label: 'Org chart', icon: Network },
  { path: 'runs', label: 'Runs', icon: Play },
  { path: 'approvals', label: 'Approvals', icon: CircleCheck },
  { path: 'goals', label: 'Goals', icon: Target },
  { path: 'projects', label: 'Projects', icon: FolderKanban },
  { path: 'documents', label: 'Documents', icon: FileText },
  { path: 'routines', label: 'Routines', icon: Repeat },
  { path: 'runners', label: 'Runners', icon: Server },
  { path: 'costs', label: 'Costs', icon: CircleDollarSign },
  { path: 'activity', label: 'Activity', icon: Activity },
  { path: 'settings', label: 'Settings', icon: Settings },
]

export function Shell({ companyId, children }: { companyId: string | null; children: ReactNode }) {
  const me = useMe()
  const savePreferences = useSavePreferences()
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const live = useLiveEvents(companyId)
  const pathname = useLocation({ select: (location) => location.pathname })
  const [drawerOpen, setDrawerOpen] = useState(false)
  const collapsed = me.data?.preferences.sidebar_collapsed ?? false

  useEffect(() => {
    if (companyId) rememberCompany(companyId)
  }, [companyId])
  useEffect(() => setDrawerOpen(false), [pathname])
  const menuButton = useRef<HTMLButtonElement>(null)
  // The open drawer closes on Escape (focus back on the menu button) and on a click beside it.
  useEffect(() => {
    if (!drawerOpen) return
    document.querySelector<HTMLElement>('#sidebar a')?.focus() // the keyboard follows into the drawer
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return
      setDrawerOpen(false)
      menuButton.current?.focus()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [drawerOpen])

  const classes = ['shell', collapsed && 'collapsed', drawerOpen && 'drawer-open'].filter(Boolean).join(' ')
  return (
    <CompanyContext.Provider value={companyId}>
      <a href="#content" className="skip-link">Skip to content</a>
      <div className={classes}>
        {/* A link followed from the drawer closes it, even one to the page already shown. */}
        <nav className="sidebar" id="sidebar" aria-label="Main" onClick={(e) => (e.target as HTMLElement).closest('a') && setDrawerOpen(false)}>
          <div className="brand">
            <span className="logo" aria-hidden />
            <span className="label">Shopfloor</span>
          </div>
          {companyId && <CompanyNav companyId={companyId} />}
          <div className="grow" />
          <button className="link show-phone" style={{ padding: '10px' }} onClick={() => void signOut(queryClient).then(() => navigate({ to: '/sign-in', replace: true }))}>Sign out</button>
          <button
            className="link hide-phone"
            style={{ padding: '6px 10px' }}
            onClick={() => savePreferences.mutate({ sidebar_collapsed: !collapsed })}
            aria-label={collapsed ? 'Expand sidebar' : 'Collapse sidebar'}
          >
            {collapsed ? '»' : '« Collapse'}
          </button>
        </nav>
        {drawerOpen && <div className="drawer-scrim" aria-hidden onClick={() => setDrawerOpen(false)} />}
        <div className="main">
          <header className="topbar">
            <button ref={menuButton} className="menu-button" aria-label="Open menu" aria-controls="sidebar" aria-expanded={drawerOpen} onClick={() => setDrawerOpen((open) => !open)}><Menu aria-hidden size={20} /></button>
            <CompanySwitcher companyId={companyId} />
            <div className="grow" />
            {companyId && (
              <button className="palette-button" aria-label="Command palette (Ctrl K)" onClick={() => window.dispatchEvent(new KeyboardEvent('keydown', { key: 'k', ctrlKey: true }))}>
                <Search aria-hidden size={16} /><span className="hide-phone"> Search… <kbd>Ctrl K</kbd></span>
              </button>
            )}
            {companyId && <LiveIndicator state={live} />}
            <Link to="/profile" className="row account-link" style={{ gap: 6, flexWrap: 'nowrap' }}>
              {me.data && <UserAvatar user={me.data} />}
              <span className="nowrap account">{me.data?.name ?? 'Profile'}</span>
            </Link>
            <button className="hide-phone" onClick={() => void signOut(queryClient).then(() => navigate({ to: '/sign-in', replace: true }))}>Sign out</button>
          </header>
          <main className="content" id="content" tabIndex={-1}>
            {/* A new page gets a fresh boundary, so one failing page does not stick. */}
            <ErrorBoundary key={pathname}>{children}</ErrorBoundary>
          </main>
          {companyId && <TabBar companyId={companyId} onMore={() => setDrawerOpen(true)} />}
        </div>
      </div>
      {companyId && <CommandPalette companyId={companyId} />}
    </CompanyContext.Provider>
  )
}

/** On a phone: the main pages one tap away at the bottom of the screen; More opens the drawer with the rest. */
const TABS = ['', 'inbox', 'tasks', 'agents'] as const

function TabBar({ companyId, onMore }: { companyId: string; onMore: () => void }) {
  const inbox = useInbox(companyId)
  const pending = inbox.data ? inbox.data.approvals.length + inbox.data.tasks.length : 0
  return (
    <nav className="tabbar" aria-label="Tabs">
      {TABS.map((path) => {
        const item = NAV.find((n) => n.path === path)!
        return (
          <Link key={path} to={`/c/$companyId${path ? `/${path}` : ''}` as '/c/$companyId'} params={{ companyId }} className="tab"
            activeOptions={{ exact: path === '', includeSearch: false }} activeProps={{ className: 'active', 'aria-current': 'page' }}>
            <item.icon className="icon" aria-hidden size={22} strokeWidth={1.8} />
            <span>{path === '' ? 'Home' : item.label}</span>
            {path === 'inbox' && pending > 0 && <span className="count" aria-label={`${pending} waiting`}>{pending}</span>}
          </Link>
        )
      })}
      <button className="tab" onClick={onMore} aria-label="More pages"><Ellipsis className="icon" aria-hidden size={22} strokeWidth={1.8} /><span>More</span></button>
    </nav>
  )
}

function CompanyNav({ companyId }: { companyId: string }) {
  const inbox = useInbox(companyId)
  const me = useMe()
  const agents = useAgents(companyId)
  const pending = inbox.data ? inbox.data.approvals.length + inbox.data.tasks.length : 0
  const favorites = new Set(me.data?.preferences.favorites?.agents ?? [])
  const favoriteAgents = (agents.data ?? []).filter((agent) => favorites.has(agent.id))
  return (
    <>
      {NAV.map((item) => {
        return (
          // The dashboard is the parent path of every company page: active only on itself.
          <Link key={item.path} to={`/c/$companyId${item.path ? `/${item.path}` : ''}` as '/c/$companyId'} params={{ companyId }} className="nav"
            activeOptions={{ exact: item.path === '', includeSearch: false }} activeProps={{ className: 'active', 'aria-current': 'page' }} title={item.label}>
            <item.icon className="icon" aria-hidden size={18} strokeWidth={1.8} />
            <span className="label grow">{item.label}</span>
            {item.path === 'inbox' && pending > 0 && <span className="badge label">{pending}</span>}
          </Link>
        )
      })}
      {favoriteAgents.length > 0 && <div className="section">Favourites</div>}
      {favoriteAgents.map((agent) => (
        <Link key={agent.id} to="/c/$companyId/agents/$agentId" params={{ companyId, agentId: agent.id }} className="nav" title={agent.name}>
          <span className="icon" aria-hidden>★</span>
          <span className="label">{agent.name}</span>
        </Link>
      ))}
    </>
  )
}
