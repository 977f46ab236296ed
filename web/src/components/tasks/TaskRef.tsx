import { Link } from '@tanstack/react-router'
import { useTask } from '../../lib/queries.ts'

/** A task named by its key (and title), linking to it, from only its id (runs carry the id). */
export function TaskRef({ companyId, taskId, withTitle = false }: { companyId: string; taskId: string; withTitle?: boolean }) {
  const task = useTask(companyId, taskId)
  if (task.error) return <span className="muted">a task that cannot be read</span>
  if (!task.data) return <span className="muted">…</span>
  return (
    <Link to="/c/$companyId/tasks/$taskRef" params={{ companyId, taskRef: task.data.key }} title={task.data.title}>
      <span className="mono">{task.data.key}</span>{withTitle && ` ${task.data.title}`}
    </Link>
  )
}
