// One run as a list item: who ran it (and, where asked, on which task), its status, live marker,
// runner, usage, summary or error, and its transcript inline, open and following live while the
// run runs. The task timeline and the agent page both show runs with it.
import { Link } from '@tanstack/react-router'
import { useState } from 'react'
import type { Run } from '#src/client/types.ts'
import { humanize } from '../../lib/format.ts'
import { runnerName } from '../../lib/names.ts'
import { useFormat } from '../../lib/preferences.tsx'
import { useAgents, useRun } from '../../lib/queries.ts'
import { Badge } from '../Badge.tsx'
import { ErrorText } from '../ErrorText.tsx'
import { RunTask } from '../TaskRef.tsx'
import { FINISHED, Transcript, Usage } from './Transcript.tsx'
import { WaitingNote } from './WaitingNote.tsx'

export function RunItem({ companyId, run, showTask = false }: { companyId: string; run: Run; showTask?: boolean }) {
  const format = useFormat()
  const agents = useAgents(companyId, true)
  const agentName = agents.data?.find((a) => a.id === run.agent_id)?.name ?? 'Someone'
  const live = !FINISHED.has(run.status)
  const [open, setOpen] = useState(live)
  const detail = useRun(companyId, run.id, open)
  // The run's own answer is fresher than the list's copy (it polls while the run is live).
  const shown = detail.data ?? run
  return (
    <li className={`run-item ${run.status}`} aria-label={`Run of ${agentName}`} data-run={run.id}>
      <div className="row small">
        <strong>{agentName}</strong>
        <span>{humanize(run.trigger)} run</span>
        {showTask && (run.task_id ? <span>on <RunTask companyId={companyId} run={run} withTitle none={null} /></span> : <span className="muted">no task</span>)}
        <Badge value={shown.status} />
        {live && shown.status === 'running' && <span className="live"><span className="dot" />live</span>}
        <span className="muted" title={format.dateTime(run.created_at)}>{format.relative(shown.started_at ?? run.created_at)}</span>
        {shown.runner_id && <span className="muted">on {runnerName(shown.runner_id)}</span>}
        <Usage run={shown} />
        <span className="grow" />
        <button className="link small" aria-expanded={open} onClick={() => setOpen(!open)}>{open ? 'Hide transcript' : 'Show transcript'}</button>
        <Link className="small" to="/c/$companyId/runs/$runId" params={{ companyId, runId: run.id }}>Open run</Link>
      </div>
      {shown.status === 'queued' && <WaitingNote companyId={companyId} run={shown} />}
      {shown.summary && <p className="body">{shown.summary}</p>}
      {shown.error && <p className="error small">{shown.status === 'cancelled' ? 'Cancelled' : 'Failed'}: {shown.error}</p>}
      {open && (detail.data ? <Transcript entries={detail.data.transcript ?? []} live={live} /> : <ErrorText error={detail.error} />)}
    </li>
  )
}
