// A task named by its key, linked to its page (its title on hover, or beside the key), from the
// task at hand, from a listed run (lists of runs name their tasks) or looked up by its id (a
// single run and the audit trail hold only the id).
import { Link } from '@tanstack/react-router'
import type { ReactNode } from 'react'
import type { Run, Task } from '#src/client/types.ts'
import { useTask } from '../lib/queries.ts'

interface Props {
  companyId: string
  taskId: string
  withTitle?: boolean
}

function TaskKeyLink({ companyId, task, withTitle }: { companyId: string; task: Pick<Task, 'key' | 'title'>; withTitle?: boolean }) {
  return (
    <Link to="/c/$companyId/tasks/$taskRef" params={{ companyId, taskRef: task.key }} title={task.title}>
      <span className="mono">{task.key}</span>{withTitle && ` ${task.title}`}
    </Link>
  )
}

/**
 * The task of a run, or `none` when it has none: named by the run when it came in a list,
 * else fetched by its id.
 */
export function RunTask({ companyId, run, withTitle, none }: { companyId: string; run: Pick<Run, 'task_id' | 'task_key' | 'task_title'>; withTitle?: boolean; none: ReactNode }) {
  if (run.task_key) return <TaskKeyLink companyId={companyId} task={{ key: run.task_key, title: run.task_title ?? '' }} withTitle={withTitle} />
  return run.task_id ? <TaskRef companyId={companyId} taskId={run.task_id} withTitle={withTitle} /> : none
}

/** The task of `taskId`, fetched (once per task, cached). */
export function TaskRef({ companyId, taskId, withTitle }: Props) {
  const task = useTask(companyId, taskId)
  if (task.data) return <TaskKeyLink companyId={companyId} task={task.data} withTitle={withTitle} />
  return <span className="muted">{task.error ? 'a deleted task' : '…'}</span>
}
