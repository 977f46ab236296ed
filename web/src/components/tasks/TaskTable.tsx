import type { Agent, Task } from '#src/client/types.ts'
import { useFormat } from '../../lib/preferences.tsx'
import { Link, useNavigate } from '@tanstack/react-router'
import { Badge } from '../Badge.tsx'

/** Tasks as a table; a row opens the task. */
export function TaskTable({ companyId, tasks, agents }: { companyId: string; tasks: Task[]; agents: Map<string, Agent> }) {
  const format = useFormat()
  const navigate = useNavigate()
  if (tasks.length === 0) return <p className="empty">No task matches.</p>
  return (
    <div className="table-wrap">
      <table className="stack">
        <thead>
          <tr><th>Key</th><th>Title</th><th>Status</th><th>Priority</th><th className="hide-phone">Assignee</th><th className="hide-phone">Due</th><th className="hide-phone">Updated</th></tr>
        </thead>
        <tbody>
          {tasks.map((task) => (
            <tr key={task.id} className="clickable" onClick={() => navigate({ to: '/c/$companyId/tasks/$taskRef', params: { companyId, taskRef: task.key } })}>
              <td className="nowrap lead"><Link to="/c/$companyId/tasks/$taskRef" params={{ companyId, taskRef: task.key }} onClick={(e) => e.stopPropagation()}>{task.key}</Link></td>
              <td className="free lead title-cell">{task.title}</td>
              <td className="lead"><Badge value={task.status} /></td>
              <td className="lead"><Badge value={task.priority} /></td>
              <td className="hide-phone">{task.assignee_agent_id ? (agents.get(task.assignee_agent_id)?.name ?? '—') : '—'}</td>
              <td className="hide-phone nowrap">{format.date(task.due_date)}</td>
              <td className="hide-phone nowrap muted">{format.relative(task.updated_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
