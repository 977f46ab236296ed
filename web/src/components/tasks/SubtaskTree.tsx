// A task's subtasks, and theirs, as a tree with each one's status.
import { Link } from '@tanstack/react-router'
import type { ReactNode } from 'react'
import type { Task } from '#src/client/types.ts'
import { useTasks } from '../../lib/queries.ts'
import { Badge } from '../Badge.tsx'
import { ErrorText } from '../ErrorText.tsx'

export function SubtaskTree({ companyId, root }: { companyId: string; root: Task }) {
  // One list of the company's tasks (cached and shared with the tasks page), cut into a tree here.
  const tasks = useTasks(companyId)
  const children = new Map<string, Task[]>()
  for (const task of tasks.data ?? []) {
    if (task.parent_id) children.set(task.parent_id, [...(children.get(task.parent_id) ?? []), task])
  }
  const branch = (parentId: string, seen: Set<string>): ReactNode => {
    const kids = children.get(parentId) ?? []
    if (kids.length === 0) return null
    return (
      <ul className="tree">
        {kids.map((task) => (
          <li key={task.id}>
            <Link to="/c/$companyId/tasks/$taskRef" params={{ companyId, taskRef: task.key }}>{task.key}</Link> {task.title} <Badge value={task.status} />
            {!seen.has(task.id) && branch(task.id, new Set(seen).add(task.id))}
          </li>
        ))}
      </ul>
    )
  }
  if (tasks.error) return <ErrorText error={tasks.error} retry={() => void tasks.refetch()} />
  if (!tasks.data) return null
  return branch(root.id, new Set([root.id])) ?? <p className="empty">No subtasks.</p>
}
