// Runs the task's agent again with a new CLI session: where a runner keeps agent homes, the next
// run of an agent on a task otherwise resumes the session of its last run there (docs/runner.md).
import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { Task } from '#src/client/types.ts'
import { api } from '../../lib/api.ts'
import { keys } from '../../lib/queries.ts'
import { ErrorText } from '../ErrorText.tsx'

export function FreshSessionButton({ companyId, task }: { companyId: string; task: Task }) {
  const client = useQueryClient()
  const wake = useMutation({
    mutationFn: () => api.agents.wake(companyId, task.assignee_agent_id!, { task_id: task.id, fresh_session: true, reason: 'Started afresh: a new session was asked for' }),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.company(companyId, 'runs') }),
  })
  if (!task.assignee_agent_id) return null
  return (
    <>
      <button onClick={() => wake.mutate()} disabled={wake.isPending} title="Runs the assignee again on this task without resuming its earlier session">
        {wake.isSuccess ? 'New session queued' : 'Start afresh'}
      </button>
      <ErrorText error={wake.error} />
    </>
  )
}
