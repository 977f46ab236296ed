import type { Run } from '#src/client/types.ts'
import { humanize } from '../lib/format.ts'
import { runnerName, useAgentName } from '../lib/names.ts'
import { useFormat } from '../lib/preferences.tsx'
import { Link } from '@tanstack/react-router'
import { Badge } from './Badge.tsx'
import { RunTask } from './TaskRef.tsx'

/**
 * Runs, newest first: when (linking to the run), the agent, the task by its key, how it went,
 * the runner that ran it and what it cost. On a phone each row is a small card.
 */
export function RunTable({ companyId, runs }: { companyId: string; runs: Run[] }) {
  const format = useFormat()
  const agentName = useAgentName(companyId)
  if (runs.length === 0) return <p className="empty">No runs.</p>
  return (
    <div className="table-wrap">
      <table className="stack">
        <thead><tr><th>Started</th><th>Agent</th><th>Task</th><th>Status</th><th>Runner</th><th>Cost</th></tr></thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.id} data-run={run.id} aria-label={`Run of ${agentName(run.agent_id) ?? 'an agent'}`}>
              <td className="nowrap">
                <Link to="/c/$companyId/runs/$runId" params={{ companyId, runId: run.id }} title={format.dateTime(run.started_at ?? run.created_at)}>
                  {run.started_at ? format.relative(run.started_at) : `queued ${format.relative(run.created_at)}`}
                </Link>
              </td>
              <td data-label="Agent" className="free">{agentName(run.agent_id) ?? 'an agent no longer here'}</td>
              <td data-label="Task" className="free">
                <RunTask companyId={companyId} run={run} none={<span className="muted">{humanize(run.trigger)} run, no task</span>} />
              </td>
              <td data-label="Status"><Badge value={run.status} /></td>
              <td data-label="Runner" className="nowrap">{run.runner_id ? runnerName(run.runner_id) : <span className="muted">{run.status === 'queued' ? 'waiting for one' : 'none'}</span>}</td>
              <td data-label="Cost" className="nowrap">{format.money(run.cost_cents)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
