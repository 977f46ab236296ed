// A task named by its key, linked to its page (its title on hover), from the task at hand or
// looked up by its id (the lists of runs and the audit trail hold only the id).
import { Link } from '@tanstack/react-router'
import type { Task } from '#src/client/types.ts'
import { useTask } from '../lib/queries.ts'

function TaskKeyLink({ companyId, task }: { companyId: string; task: Pick<Task, 'key' | 'title'> }) {
  return <Link to="/c/$companyId/tasks/$taskRef" params={{ companyId, taskRef: task.key }} title={task.title}>{task.key}</Link>
}

/** The task of `taskId`: from `known` when it holds it, else fetched (once per task, cached). */
export function TaskRef({ companyId, taskId, known }: { companyId: string; taskId: string; known?: Map<string, Task> }) {
  const task = known?.get(taskId)
  return task ? <TaskKeyLink companyId={companyId} task={task} /> : <FetchedTaskRef companyId={companyId} taskId={taskId} />
}

function FetchedTaskRef({ companyId, taskId }: { companyId: string; taskId: string }) {
  const task = useTask(companyId, taskId)
  if (task.data) return <TaskKeyLink companyId={companyId} task={task.data} />
  return <span className="muted">{task.error ? 'a deleted task' : '…'}</span>
}
