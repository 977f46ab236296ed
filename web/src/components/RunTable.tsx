import type { Run } from '#src/client/types.ts'
import { humanize } from '../lib/format.ts'
import { useFormat } from '../lib/preferences.tsx'
import { useAgents } from '../lib/queries.ts'
import { Link } from '@tanstack/react-router'
import { Badge } from './Badge.tsx'

/** Runs, newest first, each linking to its page. */
export function RunTable({ companyId, runs }: { companyId: string; runs: Run[] }) {
  const format = useFormat()
  const agents = useAgents(companyId, true)
  const name = (id: string) => agents.data?.find((a) => a.id === id)?.name ?? 'Agent'
  if (runs.length === 0) return <p className="empty">No runs.</p>
  return (
    <div className="table-wrap">
      <table>
        <thead><tr><th>Run</th><th>Agent</th><th>Status</th><th className="hide-phone">Trigger</th><th className="hide-phone">Cost</th><th>Started</th></tr></thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.id}>
              <td className="mono"><Link to="/c/$companyId/runs/$runId" params={{ companyId, runId: run.id }}>{run.id.slice(0, 8)}</Link></td>
              <td>{name(run.agent_id)}</td>
              <td><Badge value={run.status} /></td>
              <td className="hide-phone">{humanize(run.trigger)}</td>
              <td className="hide-phone">{format.money(run.cost_cents)}</td>
              <td className="nowrap muted">{format.relative(run.started_at ?? run.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
