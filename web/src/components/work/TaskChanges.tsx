import { useState } from 'react'
import type { Run, Task } from '#src/client/types.ts'
import { useFormat } from '../../lib/preferences.tsx'
import { useAgentName } from '../../lib/names.ts'
import { useRuns } from '../../lib/queries.ts'
import { Badge } from '../Badge.tsx'
import { ChecksList } from './ChecksList.tsx'
import { DiffViewer } from './DiffViewer.tsx'

/**
 * The work on a task's branch, run by run (docs/verified-work.md): the branch and whether it was
 * pushed, the commits, the files with their +/- lines, the checks with their output, and the
 * diff. The latest run is shown first; each run shows the branch as that run left it. Nothing
 * for a task whose runs recorded no changes (no repository).
 */
export function TaskChanges({ companyId, task }: { companyId: string; task: Task }) {
  const runs = useRuns(companyId, { task_id: task.id })
  const withChanges = (runs.data ?? []).filter((r) => r.changes || r.checks.length)
    .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at))
  const [chosen, setChosen] = useState<string | null>(null)
  const format = useFormat()
  const agentName = useAgentName(companyId)
  if (!withChanges.length) return null
  const run = withChanges.find((r) => r.id === chosen) ?? withChanges[0]
  return (
    <section className="panel" aria-label="Changes">
      <div className="page-head" style={{ marginBottom: 8 }}>
        <h2 style={{ margin: 0 }}>Changes</h2>
        {withChanges.length > 1 && (
          <label className="small">Run{' '}
            <select value={run.id} onChange={(e) => setChosen(e.target.value)} style={{ width: 'auto' }}>
              {withChanges.map((r, i) => (
                <option key={r.id} value={r.id}>{i === 0 ? 'Latest: ' : ''}{agentName(r.agent_id) ?? 'agent'}, {format.dateTime(r.created_at)}</option>
              ))}
            </select>
          </label>
        )}
      </div>
      <RunWork companyId={companyId} run={run} />
    </section>
  )
}

function RunWork({ companyId, run }: { companyId: string; run: Run }) {
  const c = run.changes
  return (
    <>
      {c && (
        <>
          <div className="work-summary">
            <span className="mono">{c.branch}</span>
            <Badge value={c.pushed ? 'pushed' : 'not_pushed'} />
            <span>{c.files.length} {c.files.length === 1 ? 'file' : 'files'}</span>
            <span><span className="work-plus">+{c.additions}</span> <span className="work-minus">−{c.deletions}</span></span>
            <span className="muted small mono">{c.base_commit.slice(0, 10)}..{c.head_commit.slice(0, 10)}</span>
          </div>
          {c.commits.length > 0 && (
            <details>
              <summary>{c.commits.length} {c.commits.length === 1 ? 'commit' : 'commits'}</summary>
              <ol className="work-commits small">
                {c.commits.map((commit) => <li key={commit.sha}><span className="mono muted">{commit.sha.slice(0, 10)}</span> {commit.message.split('\n')[0]}</li>)}
              </ol>
            </details>
          )}
        </>
      )}
      {run.checks.length > 0 && <><h3 className="small">Checks</h3><ChecksList checks={run.checks} /></>}
      {c && c.files.length > 0 && <DiffViewer companyId={companyId} runId={run.id} />}
      {c && c.files.length === 0 && <p className="muted">The branch has no changes yet.</p>}
    </>
  )
}
