// Under a queued run: why it waits, in words, and when no runner can take it, the ways out:
// connect a runner, or (for a task) a trial with a simulated agent inside the server, which
// needs no terminal. Used wherever a queued run shows: the task timeline, the agent page, the
// dashboard.
import { useQueryClient } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import type { Run } from '#src/client/types.ts'
import { api } from '../../lib/api.ts'
import { keys, useAgents, useRunners } from '../../lib/queries.ts'
import { useSubmit } from '../../lib/useForm.ts'
import { waitingReason } from '../../lib/waiting.ts'
import { ErrorText } from '../ErrorText.tsx'

export function WaitingNote({ companyId, run, compact = false }: { companyId: string; run: Pick<Run, 'id' | 'agent_id' | 'task_id'> & { waiting_reason?: string | null }; compact?: boolean }) {
  const client = useQueryClient()
  const runners = useRunners(companyId)
  const agents = useAgents(companyId, true)
  const adapter = agents.data?.find((a) => a.id === run.agent_id)?.adapter
  const waiting = waitingReason(run, adapter, runners.data)
  const trial = useSubmit(async () => {
    await api.runs.trial(companyId, run.id)
    await client.invalidateQueries({ queryKey: keys.company(companyId) })
  })
  return (
    <div className={`waiting ${waiting.stuck ? 'stuck' : ''}`} role="status" aria-label="Why it waits">
      <p className="small">{waiting.text}</p>
      {waiting.stuck && !compact && (
        <div className="row small">
          <Link to="/c/$companyId/start" params={{ companyId }}>Connect a runner</Link>
          {run.task_id && (
            <button className="small" onClick={() => void trial.onSubmit()} disabled={trial.pending}>
              Try it now with a simulated agent
            </button>
          )}
        </div>
      )}
      <ErrorText error={trial.error} />
    </div>
  )
}
