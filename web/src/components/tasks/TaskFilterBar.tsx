import { TASK_STATUSES, type TaskFilters, type TaskStatus } from '#src/client/types.ts'
import { humanize } from '../../lib/format.ts'
import { AgentPicker, GoalPicker, ProjectPicker } from '../Pickers.tsx'

/** Search and filters of the task list; every change is applied at once. */
export function TaskFilterBar({ filters, onChange, showStatus }: { filters: TaskFilters; onChange: (f: TaskFilters) => void; showStatus: boolean }) {
  const set = (patch: Partial<TaskFilters>) => {
    const next: TaskFilters = { ...filters, ...patch }
    for (const [key, value] of Object.entries(next)) if (value === '' || value === undefined) delete next[key as keyof TaskFilters]
    onChange(next)
  }
  const status = [filters.status ?? []].flat()
  return (
    <div className="form-grid filter-bar" role="search">
      <label className="field">
        Search
        <input type="search" key={filters.q ?? ""} placeholder="Title or description" defaultValue={filters.q ?? ''}
          onKeyDown={(e) => e.key === 'Enter' && set({ q: e.currentTarget.value.trim() })}
          onBlur={(e) => e.currentTarget.value.trim() !== (filters.q ?? '') && set({ q: e.currentTarget.value.trim() })} />
      </label>
      {showStatus && (
        <label className="field">
          Status
          <select value={status[0] ?? ''} onChange={(e) => set({ status: e.target.value ? [e.target.value as TaskStatus] : undefined })}>
            <option value="">Any</option>
            {TASK_STATUSES.map((s) => <option key={s} value={s}>{humanize(s)}</option>)}
          </select>
        </label>
      )}
      <AgentPicker label="Assignee" none="Anyone" value={filters.assignee_agent_id ?? ''} onChange={(id) => set({ assignee_agent_id: id })} />
      <ProjectPicker label="Project" none="Any" value={filters.project_id ?? ''} onChange={(id) => set({ project_id: id })} />
      <GoalPicker label="Goal" none="Any" value={filters.goal_id ?? ''} onChange={(id) => set({ goal_id: id })} />
      <label className="field check" style={{ alignSelf: 'end' }}>
        <input type="checkbox" checked={filters.created_by === 'me'} onChange={(e) => set({ created_by: e.target.checked ? 'me' : undefined })} />
        Created by me
      </label>
    </div>
  )
}
