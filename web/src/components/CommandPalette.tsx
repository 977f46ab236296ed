// Get anywhere fast. Ctrl/Cmd-K opens the command palette: jump to a task by key or title, to an
// agent or a page, or create a task with what was typed as its title. Single keys work outside
// text fields: `?` lists the shortcuts, `c` creates a task, `g` then a letter opens a page.
import { useNavigate } from '@tanstack/react-router'
import { Command, defaultFilter } from 'cmdk'
import { useEffect, useRef, useState } from 'react'
import { useAgents, useTasks } from '../lib/queries.ts'
import { Dialog } from './Dialog.tsx'
import { NewTaskDialog } from './tasks/NewTaskDialog.tsx'

type PagePath = '' | 'inbox' | 'tasks' | 'agents' | 'org' | 'runs' | 'approvals' | 'goals' | 'projects' | 'routines' | 'costs' | 'activity' | 'settings' | 'runners'

/** Pages by name, with the letter that follows `g` to open them. */
export const PAGES: { path: PagePath; label: string; key?: string }[] = [
  { path: '', label: 'Dashboard', key: 'd' },
  { path: 'inbox', label: 'Inbox', key: 'i' },
  { path: 'tasks', label: 'Tasks', key: 't' },
  { path: 'agents', label: 'Agents', key: 'a' },
  { path: 'org', label: 'Org chart', key: 'o' },
  { path: 'runs', label: 'Runs', key: 'r' },
  { path: 'approvals', label: 'Approvals', key: 'p' },
  { path: 'goals', label: 'Goals' },
  { path: 'projects', label: 'Projects' },
  { path: 'routines', label: 'Routines' },
  { path: 'runners', label: 'Runners', key: 'n' },
  { path: 'costs', label: 'Costs', key: 'c' },
  { path: 'activity', label: 'Activity' },
  { path: 'settings', label: 'Settings', key: 's' },
]

const typing = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))

export function CommandPalette({ companyId }: { companyId: string }) {
  const navigate = useNavigate()
  const [open, setOpen] = useState<'palette' | 'help' | 'new-task' | null>(null)
  const [newTitle, setNewTitle] = useState('')
  const pendingG = useRef(0)
  const openPage = (path: PagePath) => navigate({ to: `/c/$companyId${path ? `/${path}` : ''}` as '/c/$companyId', params: { companyId } })

  useEffect(() => {
    function onKey(event: KeyboardEvent) {
      if ((event.metaKey || event.ctrlKey) && event.key.toLowerCase() === 'k') {
        event.preventDefault()
        setOpen((now) => (now === 'palette' ? null : 'palette'))
        return
      }
      if (event.metaKey || event.ctrlKey || event.altKey || typing(event.target) || document.querySelector('dialog[open]')) return
      if (Date.now() - pendingG.current < 1500) {
        pendingG.current = 0
        const page = PAGES.find((p) => p.key === event.key)
        if (page) {
          event.preventDefault()
          openPage(page.path)
        }
        return
      }
      if (event.key === 'g') pendingG.current = Date.now()
      else if (event.key === '?') setOpen('help')
      else if (event.key === 'c') {
        event.preventDefault()
        setNewTitle('')
        setOpen('new-task')
      }
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  })

  if (open === 'help') return <ShortcutsHelp onClose={() => setOpen(null)} />
  if (open === 'new-task') return <NewTaskDialog companyId={companyId} initialTitle={newTitle} onClose={() => setOpen(null)} onCreated={(task) => navigate({ to: '/c/$companyId/tasks/$taskRef', params: { companyId, taskRef: task.key } })} />
  if (open !== 'palette') return null
  return (
    <Palette
      companyId={companyId}
      onClose={() => setOpen(null)}
      onPage={(path) => { setOpen(null); openPage(path) }}
      onTask={(key) => { setOpen(null); void navigate({ to: '/c/$companyId/tasks/$taskRef', params: { companyId, taskRef: key } }) }}
      onAgent={(id) => { setOpen(null); void navigate({ to: '/c/$companyId/agents/$agentId', params: { companyId, agentId: id } }) }}
      onCreate={(title) => { setNewTitle(title); setOpen('new-task') }}
    />
  )
}

const CREATE = '__create_task__'
/**
 * cmdk's fuzzy ranking, with what contains the typed text as it is (a key, a word of a title)
 * above letters merely found in order; "Create task" always matches and always ranks last.
 */
function rank(value: string, search: string, keywords?: string[]): number {
  if (value === CREATE) return 0.0001
  const fuzzy = defaultFilter(value, search, keywords)
  return value.toLowerCase().includes(search.trim().toLowerCase()) ? 1 + fuzzy : fuzzy / 2
}

interface PaletteProps {
  companyId: string
  onClose: () => void
  onPage: (path: PagePath) => void
  onTask: (key: string) => void
  onAgent: (id: string) => void
  onCreate: (title: string) => void
}

function Palette({ companyId, onClose, onPage, onTask, onAgent, onCreate }: PaletteProps) {
  const tasks = useTasks(companyId)
  const agents = useAgents(companyId)
  const [query, setQuery] = useState('')
  return (
    <Dialog title="Go to…" onClose={onClose}>
      <Command label="Command palette" className="palette" loop filter={rank}>
        <Command.Input autoFocus value={query} onValueChange={setQuery} placeholder="A task key or title, an agent, a page…" aria-label="Search" />
        <Command.List>
          <Command.Group heading="Pages">
            {PAGES.map((page) => (
              <Command.Item key={page.path} value={`page ${page.label}`} onSelect={() => onPage(page.path)}>{page.label}</Command.Item>
            ))}
          </Command.Group>
          <Command.Group heading="Tasks">
            {(tasks.data ?? []).slice(0, 200).map((task) => (
              <Command.Item key={task.id} value={`${task.key} ${task.title}`} onSelect={() => onTask(task.key)}>
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
          {query.trim() && (
            <Command.Group heading="Create">
              <Command.Item value={CREATE} onSelect={() => onCreate(query.trim())}>Create task “{query.trim()}”</Command.Item>
            </Command.Group>
          )}
        </Command.List>
      </Command>
    </Dialog>
  )
}

function ShortcutsHelp({ onClose }: { onClose: () => void }) {
  const rows: [string, string][] = [
    ['Ctrl K  /  ⌘ K', 'Command palette: go to a task, an agent or a page; create a task'],
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
