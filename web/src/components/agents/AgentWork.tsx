// What an agent is doing and has done: its current run followed live (runs/RunItem.tsx, the same
// piece the task timeline shows), and its recent runs with outcome, task and cost.
import { Link } from '@tanstack/react-router'
import type { Run } from '#src/client/types.ts'
import { humanize } from '../../lib/format.ts'
import { useFormat } from '../../lib/preferences.tsx'
import { Badge } from '../Badge.tsx'
import { RunItem } from '../runs/RunItem.tsx'
import { TaskRef } from '../TaskRef.tsx'

/** The run in progress (or, failing that, the next one waiting for a runner). */
export function currentRun(runs: Run[]): Run | undefined {
  return runs.find((run) => run.status === 'running') ?? runs.findLast((run) => run.status === 'queued')
}

export function CurrentRun({ companyId, run }: { companyId: string; run: Run | undefined }) {
  if (!run) return <p className="empty">Not working on anything right now.</p>
  // Keyed by run, so a new run opens its transcript afresh.
  return <ol className="timeline"><RunItem key={run.id} companyId={companyId} run={run} showTask /></ol>
}

export function RecentRuns({ companyId, runs }: { companyId: string; runs: Run[] }) {
  const format = useFormat()
  if (runs.length === 0) return <p className="empty">No runs.</p>
  return (
    <div className="table-wrap">
      <table>
        <thead><tr><th>Started</th><th>Outcome</th><th>Task</th><th className="hide-phone">Trigger</th><th className="right">Cost</th><th className="hide-phone">Run</th></tr></thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.id} data-run={run.id}>
              <td className="nowrap muted" title={format.dateTime(run.started_at ?? run.created_at)}>{format.relative(run.started_at ?? run.created_at)}</td>
              <td><Badge value={run.status} /></td>
              <td className="nowrap">{run.task_id ? <TaskRef companyId={companyId} taskId={run.task_id} /> : <span className="muted">—</span>}</td>
              <td className="hide-phone">{humanize(run.trigger)}</td>
              <td className="right">{format.money(run.cost_cents)}</td>
              <td className="hide-phone mono"><Link to="/c/$companyId/runs/$runId" params={{ companyId, runId: run.id }}>{run.id.slice(0, 8)}</Link></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
