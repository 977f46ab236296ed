// One run as a list item: who ran it (and, where asked, on which task), its status, live marker,
// runner, usage, summary or error, and its transcript inline, open and following live while the
// run runs. The task timeline and the agent page both show runs with it.
import { Link } from '@tanstack/react-router'
import { useState } from 'react'
import type { Run } from '#src/client/types.ts'
import { humanize } from '../../lib/format.ts'
import { runnerName, useAgentName } from '../../lib/names.ts'
import { useFormat } from '../../lib/preferences.tsx'
import { useComments, useRun } from '../../lib/queries.ts'
import { Badge } from '../Badge.tsx'
import { ErrorText } from '../ErrorText.tsx'
import { RunTask } from '../TaskRef.tsx'
import { useTick } from '../../lib/tick.ts'
import { FINISHED, Transcript, Usage } from './Transcript.tsx'
import { Markdown } from '../Markdown.tsx'
import { WaitingNote } from './WaitingNote.tsx'

/**
 * `repliesInComments`: the page shows the task's comments, where the runner posts a run's reply
 * (as the reply's comment, just before it reports the run finished); a summary said there is
 * not said twice.
 */
export function RunItem({ companyId, run, showTask = false, repliesInComments = false, shownAbove = false }: {
  companyId: string; run: Run; showTask?: boolean; repliesInComments?: boolean
  /** The page shows this run in full above (the task page's latest run): here its transcript starts folded, and why it waits is said there. */
  shownAbove?: boolean
}) {
  const format = useFormat()
  useTick() // the times and a running run's duration move on
  const agentName = useAgentName(companyId)(run.agent_id) ?? 'an agent no longer here'
  const live = !FINISHED.has(run.status)
  const [open, setOpen] = useState(live && !shownAbove)
  const detail = useRun(companyId, run.id, open)
  // The run's own answer is fresher than the list's copy (it polls while the run is live).
  const shown = detail.data ?? run
  const replies = repliesInComments && Boolean(run.task_id)
  const comments = useComments(companyId, run.task_id ?? '', replies)
  // The comments and the runs are fetched apart: while the comments are on their way, a summary
  // not among them yet may be the reply they bring, so it waits rather than show twice for a moment.
  const summaryInComment = replies && (comments.isFetching ||
    comments.data?.some((c) => c.run_id === run.id && c.body.trim() === shown.summary?.trim()) === true)
  return (
    <li className={`run-item ${run.status}`} aria-label={`Run of ${agentName}`} data-run={run.id}>
      <div className="row small">
        <strong>{agentName}</strong>
        <span>{humanize(run.trigger)} run</span>
        {showTask && (run.task_id ? <span>on <RunTask companyId={companyId} run={run} withTitle none={null} /></span> : <span className="muted">no task</span>)}
        <Badge value={shown.status} />
        {live && shown.status === 'running' && <span className="live"><span className="dot" />live</span>}
        <span className="muted" title={shown.started_at ? `Started ${format.dateTime(shown.started_at)} (queued ${format.dateTime(run.created_at)})` : `Queued ${format.dateTime(run.created_at)}`}>
          {format.relative(shown.started_at ?? run.created_at)}
        </span>
        {shown.started_at && <span className="muted" title="How long it ran">{duration(shown.started_at, shown.ended_at)}</span>}
        {shown.runner_id && <span className="muted">on {runnerName(shown.runner_id)}</span>}
        <Usage run={shown} />
        <span className="grow" />
        <button className="link small" aria-expanded={open} onClick={() => setOpen(!open)}>{open ? 'Hide transcript' : 'Show transcript'}</button>
        <Link className="small" to="/c/$companyId/runs/$runId" params={{ companyId, runId: run.id }}>Open run</Link>
      </div>
      {shown.status === 'queued' && !shownAbove && <WaitingNote companyId={companyId} run={shown} />}
      {shown.summary && !summaryInComment && <Markdown className="body" text={shown.summary} />}
      {shown.error && <p className="error small">{shown.status === 'cancelled' ? 'Cancelled' : 'Failed'}: {shown.error}</p>}
      {open && (detail.data ? <Transcript key={detail.data.transcript_from ?? 0} entries={detail.data.transcript ?? []} live={live} run={{ companyId, id: run.id, from: detail.data.transcript_from ?? 0 }} /> : <ErrorText error={detail.error} />)}
    </li>
  )
}

/** "for 4 s", "for 2 min 5 s", "for 1 h 3 min": from its start to its end, or to now while it runs. */
export function duration(startedAt: string, endedAt: string | null): string {
  const seconds = Math.max(0, Math.round(((endedAt ? Date.parse(endedAt) : Date.now()) - Date.parse(startedAt)) / 1000))
  if (seconds < 60) return `for ${seconds} s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `for ${minutes} min${seconds % 60 ? ` ${seconds % 60} s` : ''}`
  return `for ${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`
}
