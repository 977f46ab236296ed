// A task named by its key, linked to its page (its title on hover, or beside the key), from the
// task at hand or looked up by its id (runs and the audit trail hold only the id).
import { Link } from '@tanstack/react-router'
import type { Task } from '#src/client/types.ts'
import { useTask } from '../lib/queries.ts'

interface Props {
  companyId: string
  taskId: string
  /** Tasks already fetched by the page, so a long list makes no request per row. */
  known?: Map<string, Task>
  withTitle?: boolean
}

function TaskKeyLink({ companyId, task, withTitle }: { companyId: string; task: Pick<Task, 'key' | 'title'>; withTitle?: boolean }) {
  return (
    <Link to="/c/$companyId/tasks/$taskRef" params={{ companyId, taskRef: task.key }} title={task.title}>
      <span className="mono">{task.key}</span>{withTitle && ` ${task.title}`}
    </Link>
  )
}

/** The task of `taskId`: from `known` when it holds it, else fetched (once per task, cached). */
export function TaskRef({ companyId, taskId, known, withTitle }: Props) {
  const task = known?.get(taskId)
  return task ? <TaskKeyLink companyId={companyId} task={task} withTitle={withTitle} /> : <FetchedTaskRef companyId={companyId} taskId={taskId} withTitle={withTitle} />
}

function FetchedTaskRef({ companyId, taskId, withTitle }: { companyId: string; taskId: string; withTitle?: boolean }) {
  const task = useTask(companyId, taskId)
  if (task.data) return <TaskKeyLink companyId={companyId} task={task.data} withTitle={withTitle} />
  return <span className="muted">{task.error ? 'a deleted task' : '…'}</span>
}
