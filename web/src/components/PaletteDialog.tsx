// The command palette's dialog (cmdk) and the shortcuts help, loaded on first use.
import { Command, defaultFilter } from 'cmdk'
import { useEffect, useState } from 'react'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '../lib/api.ts'
import { keys, useAgents, useTask, useTasks } from '../lib/queries.ts'
import { ErrorText } from './ErrorText.tsx'
import { type PagePath, PAGES } from '../lib/pages.ts'
import { Dialog } from './Dialog.tsx'

const CREATE = '__create_task__'
/** Tasks offered at a time: the newest, or the best matches of what is typed. */
const TASKS_SHOWN = 20
/** What a task key looks like (ACME-12): looked up as it is, whatever the title. */
const TASK_KEY = /^[a-z][a-z0-9]*-\d+$/i
/**
 * cmdk's fuzzy ranking, with what contains the typed text as it is (a key, a word of a title)
 * above letters merely found in order; "Create task" always matches and always ranks last.
 */
function rank(value: string, search: string, keywords?: string[]): number {
  if (value === CREATE) return 0.0001
  const fuzzy = defaultFilter(value, search, keywords)
  return value.toLowerCase().includes(search.trim().toLowerCase()) ? 1 + fuzzy : fuzzy / 2
}

/** Pages beyond the sidebar's, reached from the palette too. */
const MORE_PAGES: { to: string; label: string }[] = [
  { to: 'webhooks', label: 'Webhooks' },
  { to: 'start', label: 'Connect a runner (guided start)' },
  { to: '/profile', label: 'Profile and API keys' },
]

interface PaletteProps {
  companyId: string
  onClose: () => void
  onPage: (path: PagePath) => void
  /** A path under the company, or an absolute one (`/profile`), with search values. */
  onGo: (to: string, search?: Record<string, string>) => void
  onTask: (key: string) => void
  onAgent: (id: string) => void
  onCreate: (title: string) => void
}

export function Palette({ companyId, onClose, onPage, onGo, onTask, onAgent, onCreate }: PaletteProps) {
  const agents = useAgents(companyId)
  const client = useQueryClient()
  // Pause or resume an agent from here; the palette closes once the server agreed, or says why not.
  const act = useMutation({
    mutationFn: ({ id, action }: { id: string; action: 'pause' | 'resume' }) => (action === 'pause' ? api.agents.pause(companyId, id) : api.agents.resume(companyId, id)),
    onSuccess() {
      void client.invalidateQueries({ queryKey: keys.company(companyId, 'agents') })
      onClose()
    },
  })
  const [query, setQuery] = useState('')
  // The server searches the company's tasks (titles and descriptions, as the tasks page's
  // search), a moment after the typing stops: a company may have far more tasks than a list
  // brings. A key is also looked up by itself.
  const [search, setSearch] = useState('')
  useEffect(() => {
    const timer = setTimeout(() => setSearch(query.trim()), 150)
    return () => clearTimeout(timer)
  }, [query])
  const found = useTasks(companyId, search ? { q: search, limit: TASKS_SHOWN } : { limit: TASKS_SHOWN })
  const byKey = useTask(companyId, TASK_KEY.test(search) ? search.toUpperCase() : '')
  // The tasks and "Create task" wait for the search's answer, and come together: cmdk selects
  // the best match when items arrive with none selected, but keeps a selection made before.
  const searching = search !== query.trim() || found.isLoading || byKey.isLoading
  const tasks = searching ? [] : [...(byKey.data ? [byKey.data] : []), ...(found.data ?? []).filter((t) => t.id !== byKey.data?.id)]
  return (
    <Dialog title="Go to…" onClose={onClose}>
      <Command label="Command palette" className="palette" loop filter={rank}>
        <Command.Input autoFocus value={query} onValueChange={setQuery} placeholder="A task, an agent, a page, or an action (hire, pause Ada)…" aria-label="Search" />
        <ErrorText error={act.error} />
        <Command.List>
          <Command.Group heading="Actions">
            <Command.Item value="action Hire an agent" onSelect={() => onGo('agents', { new: '1' })}>Hire an agent</Command.Item>
            <Command.Item value="action New routine" onSelect={() => onGo('routines', { new: '1' })}>New routine</Command.Item>
            {/* Pausing is asked for in words ("pause ada"), so typing a name still goes to the agent. */}
            {/\b(pause|resume)/i.test(query) && (agents.data ?? []).filter((a) => a.status !== 'terminated' && a.status !== 'pending_approval').map((agent) => {
              const action = agent.status === 'paused' ? 'resume' : 'pause'
              const label = `${action === 'pause' ? 'Pause' : 'Resume'} ${agent.name}`
              return <Command.Item key={`act-${agent.id}`} value={`action ${label}`} onSelect={() => act.mutate({ id: agent.id, action })}>{label}</Command.Item>
            })}
          </Command.Group>
          <Command.Group heading="Pages">
            {PAGES.map((page) => (
              <Command.Item key={page.path} value={`page ${page.label}`} onSelect={() => onPage(page.path)}>{page.label}</Command.Item>
            ))}
            {MORE_PAGES.map((page) => (
              <Command.Item key={page.to} value={`page ${page.label}`} onSelect={() => onGo(page.to)}>{page.label}</Command.Item>
            ))}
          </Command.Group>
          <Command.Group heading="Tasks">
            {tasks.map((task) => (
              <Command.Item key={task.id} value={`${task.key} ${task.title}`} keywords={task.description ? [task.description] : undefined} onSelect={() => onTask(task.key)}>
                <span className="mono muted">{task.key}</span> {task.title}
              </Command.Item>
            ))}
          </Command.Group>
          <Command.Group heading="Agents">
            {(agents.data ?? []).map((agent) => (
              <Command.Item key={agent.id} value={`agent ${agent.name} ${agent.title ?? ''}`} onSelect={() => onAgent(agent.id)}>
                {agent.name} {agent.title && <span className="muted">{agent.title}</span>}
              </Command.Item>
            ))}
          </Command.Group>
          {/* Always offered, and last: a match above it is what Enter picks. */}
          {query.trim() && !searching && (
            <Command.Group heading="Create">
              <Command.Item value={CREATE} onSelect={() => onCreate(query.trim())}>Create task “{query.trim()}”</Command.Item>
            </Command.Group>
          )}
        </Command.List>
      </Command>
    </Dialog>
  )
}

export function ShortcutsHelp({ onClose }: { onClose: () => void }) {
  const rows: [string, string][] = [
    ['Ctrl K  /  ⌘ K', 'Command palette: go to a task, an agent or a page; create a task; hire, pause or resume an agent; a new routine'],
    ['c', 'Create a task'],
    ['?', 'This list'],
    ...PAGES.filter((p) => p.key).map((p): [string, string] => [`g then ${p.key}`, `Open ${p.label}`]),
    ['Shift ← / →', 'On the board: move the focused task to the previous or next column'],
    ['Esc', 'Close a dialog'],
  ]
  return (
    <Dialog title="Keyboard shortcuts" onClose={onClose}>
      <table className="shortcuts">
        <tbody>{rows.map(([keys, what]) => <tr key={keys}><td><kbd>{keys}</kbd></td><td>{what}</td></tr>)}</tbody>
      </table>
    </Dialog>
  )
}
