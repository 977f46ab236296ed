// A task named by its key, linked to its page, from the task at hand or looked up by its id
// (the lists of runs and the audit trail hold only the id).
import { Link } from '@tanstack/react-router'
import type { Task } from '#src/client/types.ts'
import { useTask } from '../lib/queries.ts'

export function TaskKeyLink({ companyId, task, withTitle = false }: { companyId: string; task: Pick<Task, 'key' | 'title'>; withTitle?: boolean }) {
  return (
    <Link to="/c/$companyId/tasks/$taskRef" params={{ companyId, taskRef: task.key }} title={task.title}>
      {task.key}{withTitle && <span className="muted"> {task.title}</span>}
    </Link>
  )
}

/** The task of `taskId`: from `known` when it holds it, else fetched (once per task, cached). */
export function TaskRef({ companyId, taskId, known, withTitle }: { companyId: string; taskId: string; known?: Map<string, Task>; withTitle?: boolean }) {
  const task = known?.get(taskId)
  return task ? <TaskKeyLink companyId={companyId} task={task} withTitle={withTitle} /> : <FetchedTaskRef companyId={companyId} taskId={taskId} withTitle={withTitle} />
}

function FetchedTaskRef({ companyId, taskId, withTitle }: { companyId: string; taskId: string; withTitle?: boolean }) {
  const task = useTask(companyId, taskId)
  if (task.data) return <TaskKeyLink companyId={companyId} task={task.data} withTitle={withTitle} />
  return <span className="muted">{task.error ? 'a deleted task' : '…'}</span>
}
