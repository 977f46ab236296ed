// A task's subtasks, and theirs, as a tree with each one's status.
import { Link } from '@tanstack/react-router'
import type { Task } from '#src/client/types.ts'
import { useTasks } from '../../lib/queries.ts'
import { Badge } from '../Badge.tsx'
import { ErrorText } from '../ErrorText.tsx'

export function SubtaskTree({ companyId, root }: { companyId: string; root: Task }) {
  return <Branch companyId={companyId} parentId={root.id} seen={new Set([root.id])} top />
}

/**
 * The children of one task, each with its own branch: every level asks for its tasks by parent
 * (the list's parent_id filter), so a subtask is found however many tasks the company has.
 * `seen` stops at a task already above (a loop of parents written by hand).
 */
function Branch({ companyId, parentId, seen, top = false }: { companyId: string; parentId: string; seen: Set<string>; top?: boolean }) {
  const children = useTasks(companyId, { parent_id: parentId })
  if (children.error) return <ErrorText error={children.error} retry={() => void children.refetch()} />
  if (!children.data) return null
  if (children.data.length === 0) return top ? <p className="empty">No subtasks.</p> : null
  return (
    <ul className="tree">
      {children.data.map((task) => (
        <li key={task.id}>
          <Link to="/c/$companyId/tasks/$taskRef" params={{ companyId, taskRef: task.key }}>{task.key}</Link> {task.title} <Badge value={task.status} />
          {!seen.has(task.id) && <Branch companyId={companyId} parentId={task.id} seen={new Set(seen).add(task.id)} />}
        </li>
      ))}
    </ul>
  )
}
