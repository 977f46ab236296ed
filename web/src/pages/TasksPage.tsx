import { useState } from 'react'
import { ErrorText } from '../components/ErrorText.tsx'
import { BOARD_COLUMNS, filtersFromQuery, filtersFromSearch, queryFromFilters, searchFromFilters } from '../components/tasks/filters.ts'
import { NewTaskDialog } from '../components/tasks/NewTaskDialog.tsx'
import { SavedViews } from '../components/tasks/SavedViews.tsx'
import { TaskBoard } from '../components/tasks/TaskBoard.tsx'
import { TaskFilterBar } from '../components/tasks/TaskFilterBar.tsx'
import { TaskTable } from '../components/tasks/TaskTable.tsx'
import { useMoveTask } from '../components/tasks/useMoveTask.ts'
import { useCompanyId } from '../lib/company.ts'
import { useSavePreferences } from '../lib/preferences.tsx'
import { useAgents, useBoardTasks, useMe, useTasks } from '../lib/queries.ts'
import { useNavigate, useSearch } from '@tanstack/react-router'

export function TasksPage() {
  const companyId = useCompanyId()
  const me = useMe()
  const savePreferences = useSavePreferences()
  const search = useSearch({ from: '/signed-in/c/$companyId/tasks' })
  const navigate = useNavigate()
  const view = me.data?.preferences.tasks?.view ?? 'list'
  const filters = filtersFromSearch(search)
  const query = queryFromFilters(filters)
  const list = useTasks(companyId, filters, view === 'list')
  // The board shows every status as a column, so a status filter applies to the list only.
  const board = useBoardTasks(companyId, { ...filters, status: undefined }, BOARD_COLUMNS, view === 'board')
  const agents = useAgents(companyId, true)
  const move = useMoveTask(companyId)
  const [creating, setCreating] = useState(false)
  const agentMap = new Map((agents.data ?? []).map((a) => [a.id, a]))
  const apply = (next: string) => navigate({ to: '/c/$companyId/tasks', params: { companyId }, search: searchFromFilters(filtersFromQuery(next)), replace: true })

  return (
    <>
      <div className="page-head">
        <h1>Tasks</h1>
        <div className="actions">
          <div role="group" aria-label="View" className="actions" style={{ gap: 0 }}>
            {(['list', 'board'] as const).map((v) => (
              <button key={v} className={view === v ? 'primary' : ''} aria-pressed={view === v} onClick={() => savePreferences.mutate({ tasks: { view: v } })}>
                {v === 'list' ? 'List' : 'Board'}
              </button>
            ))}
          </div>
          <button className="primary" onClick={() => setCreating(true)}>New task</button>
        </div>
      </div>
      <SavedViews query={query} onApply={apply} />
      <TaskFilterBar filters={filters} showStatus={view === 'list'} onChange={(f) => apply(queryFromFilters(f))} />
      {view === 'board' ? (
        <>
          <ErrorText error={board.error ?? move.error} retry={board.refetch} />
          {board.tasks && <TaskBoard companyId={companyId} tasks={board.tasks} more={board.more} agents={agentMap} onMove={(task, status, refused) => move.mutate({ task, status }, { onError: refused })} />}
          {!board.tasks && !board.error && <p className="muted">Loading…</p>}
        </>
      ) : (
        <>
          <ErrorText error={list.error} retry={() => void list.refetch()} />
          {list.data && <TaskTable companyId={companyId} tasks={list.data} agents={agentMap} />}
          {list.isPending && <p className="muted">Loading…</p>}
        </>
      )}
      {creating && <NewTaskDialog companyId={companyId} onClose={() => setCreating(false)} />}
    </>
  )
}
