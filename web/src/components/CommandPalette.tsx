// Get anywhere fast. Ctrl/Cmd-K opens the command palette: jump to a task by key or title, to an
// agent or a page, or create a task with what was typed as its title. Single keys work outside
// text fields: `?` lists the shortcuts, `c` creates a task, `g` then a letter opens a page.
import { useNavigate } from '@tanstack/react-router'
import { lazy, Suspense, useEffect, useRef, useState } from 'react'
import { type PagePath, PAGES } from '../lib/pages.ts'

// The palette and the help are not part of the first load; the shell fetches them once it is up,
// so Ctrl-K followed at once by typing loses no keystroke.
const loadDialogs = () => import('./PaletteDialog.tsx')
const Palette = lazy(() => loadDialogs().then((m) => ({ default: m.Palette })))
const ShortcutsHelp = lazy(() => loadDialogs().then((m) => ({ default: m.ShortcutsHelp })))
// So is the new-task form (and the contract's lists of statuses it brings along).
const loadNewTask = () => import('./tasks/NewTaskDialog.tsx')
const NewTaskDialog = lazy(() => loadNewTask().then((m) => ({ default: m.NewTaskDialog })))

const typing = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))

export function CommandPalette({ companyId }: { companyId: string }) {
  const navigate = useNavigate()
  const [open, setOpen] = useState<'palette' | 'help' | 'new-task' | null>(null)
  const [newTitle, setNewTitle] = useState('')
  const pendingG = useRef(0)
  const openPage = (path: PagePath) => navigate({ to: `/c/$companyId${path ? `/${path}` : ''}` as '/c/$companyId', params: { companyId } })

  useEffect(() => {
    void loadDialogs()
    void loadNewTask()
  }, [])

  useEffect(() => {
    function onKey(event: KeyboardEvent) {
      if ((event.metaKey || event.ctrlKey) && event.key.toLowerCase() === 'k') {
        event.preventDefault()
        setOpen((now) => (now === 'palette' ? null : 'palette'))
        return
      }
      // Not while a dialog is open or still loading, nor while typing: keys are text there.
      if (open || event.metaKey || event.ctrlKey || event.altKey || typing(event.target) || document.querySelector('dialog[open]')) return
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

  if (open === 'help') return <Suspense><ShortcutsHelp onClose={() => setOpen(null)} /></Suspense>
  if (open === 'new-task') return <Suspense><NewTaskDialog companyId={companyId} initialTitle={newTitle} onClose={() => setOpen(null)} onCreated={(task) => navigate({ to: '/c/$companyId/tasks/$taskRef', params: { companyId, taskRef: task.key } })} /></Suspense>
  if (open !== 'palette') return null
  return (
    <Suspense>
    <Palette
      companyId={companyId}
      onClose={() => setOpen(null)}
      onPage={(path) => { setOpen(null); openPage(path) }}
      onGo={(to, search) => {
        setOpen(null)
        void navigate(to.startsWith('/') ? { to: to as '/profile' } : { to: `/c/$companyId/${to}` as '/c/$companyId', params: { companyId }, search: (search ?? {}) as never })
      }}
      onTask={(key) => { setOpen(null); void navigate({ to: '/c/$companyId/tasks/$taskRef', params: { companyId, taskRef: key } }) }}
      onAgent={(id) => { setOpen(null); void navigate({ to: '/c/$companyId/agents/$agentId', params: { companyId, agentId: id } }) }}
      onCreate={(title) => { setNewTitle(title); setOpen('new-task') }}
    />
    </Suspense>
  )
}
