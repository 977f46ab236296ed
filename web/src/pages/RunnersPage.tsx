import { Link } from '@tanstack/react-router'
import { Badge } from '../components/Badge.tsx'
import { ErrorText } from '../components/ErrorText.tsx'
import { adapterLabel } from '../lib/adapters.ts'
import { useCompanyId } from '../lib/company.ts'
import { useFormat } from '../lib/preferences.tsx'
import { useRunners } from '../lib/queries.ts'


/** The runners the server has heard from: what they run, their CLIs, and what they are doing now. */
export function RunnersPage() {
  const companyId = useCompanyId()
  const format = useFormat()
  const runners = useRunners(companyId)
  return (
    <>
      <div className="page-head"><h1>Runners</h1><Link to="/c/$companyId/start" params={{ companyId }}>Connect a runner</Link></div>
      <ErrorText error={runners.error} retry={() => void runners.refetch()} />
      {runners.data?.length === 0 && <p className="empty">No runner has connected yet. Queued runs wait until one does.</p>}
      {runners.data && runners.data.length > 0 && (
        <div className="panel table-wrap">
          <table className="stack">
            <thead><tr><th>Runner</th><th>Status</th><th>Runs</th><th>CLIs found</th><th>Last seen</th><th>Working on</th></tr></thead>
            <tbody>
              {runners.data.map((runner) => (
                <tr key={runner.runner_id} aria-label={runner.runner_id}>
                  <td className="mono title-cell">{runner.runner_id}</td>
                  <td data-label="Status"><Badge value={runner.status} /></td>
                  <td data-label="Runs" className="small">{runner.adapters ? runner.adapters.map(adapterLabel).join(', ') : 'every adapter (simulated)'}</td>
                  <td data-label="CLIs found" className="small">{Object.entries(runner.versions).map(([cli, version]) => `${cli} ${version}`).join(', ') || '—'}</td>
                  <td data-label="Last seen" className="nowrap muted" title={format.dateTime(runner.last_seen_at)}>{format.relative(runner.last_seen_at)}</td>
                  <td data-label="Working on" className="small">
                    {runner.running_runs.length === 0 && <span className="muted">Nothing</span>}
                    {runner.running_runs.map((run) => (
                      <div key={run.id}>
                        <Link to="/c/$companyId/runs/$runId" params={{ companyId, runId: run.id }}>{run.agent_name}</Link>
                        {run.task_key && <> on <Link to="/c/$companyId/tasks/$taskRef" params={{ companyId, taskRef: run.task_key }}>{run.task_key}</Link> {run.task_title}</>}
                      </div>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  )
}
