// Pause, resume, wake and terminate, offered according to the agent's status.
import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { Agent } from '#src/client/types.ts'
import { api } from '../../lib/api.ts'
import { keys } from '../../lib/queries.ts'
import { useNavigate } from '@tanstack/react-router'
import { ErrorText } from '../ErrorText.tsx'

const DORMANT = new Set(['paused', 'pending_approval', 'terminated'])

export function AgentActions({ companyId, agent }: { companyId: string; agent: Agent }) {
  const client = useQueryClient()
  const navigate = useNavigate()
  const refresh = () => client.invalidateQueries({ queryKey: keys.company(companyId) })
  const act = useMutation({
    mutationFn: (action: 'pause' | 'resume' | 'terminate') => api.agents[action](companyId, agent.id),
    onSuccess: refresh,
  })
  const wake = useMutation({
    mutationFn: (reason: string) => api.agents.wake(companyId, agent.id, reason ? { reason } : {}),
    onSuccess(run) {
      void refresh()
      navigate({ to: '/c/$companyId/runs/$runId', params: { companyId, runId: run.id } })
    },
  })
  const busy = act.isPending || wake.isPending
  return (
    <>
      <div className="actions">
        {!DORMANT.has(agent.status) && (
          <button onClick={() => { const reason = window.prompt('Why wake this agent? (optional)'); if (reason !== null) wake.mutate(reason.trim()) }} disabled={busy}>Wake</button>
        )}
        {agent.status === 'paused'
          ? <button onClick={() => act.mutate('resume')} disabled={busy}>Resume</button>
          : !DORMANT.has(agent.status) && <button onClick={() => act.mutate('pause')} disabled={busy}>Pause</button>}
        {agent.status !== 'terminated' && (
          <button className="danger" disabled={busy}
            onClick={() => window.confirm(`Terminate ${agent.name}? Its runs are cancelled and its reports move to its manager. This cannot be undone.`) && act.mutate('terminate')}>
            Terminate
          </button>
        )}
      </div>
      <ErrorText error={act.error ?? wake.error} />
    </>
  )
}
