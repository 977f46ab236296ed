import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef } from 'react'
import type { Run } from '#src/client/types.ts'
import { Badge } from '../components/Badge.tsx'
import { ErrorText } from '../components/ErrorText.tsx'
import { api } from '../lib/api.ts'
import { useCompanyId } from '../lib/company.ts'
import { humanize } from '../lib/format.ts'
import { runnerName } from '../lib/names.ts'
import { useFormat } from '../lib/preferences.tsx'
import { keys, useAgent, useRun, useTask } from '../lib/queries.ts'
import { Link, useParams } from '@tanstack/react-router'
import { FINISHED, Transcript } from '../components/runs/Transcript.tsx'
import { Markdown } from '../components/Markdown.tsx'


/** One run; while it runs, each run.updated event refetches it, so the transcript grows live. */
export function RunPage() {
  const { runId } = useParams({ from: '/signed-in/c/$companyId/runs/$runId' })
  const companyId = useCompanyId()
  const run = useRun(companyId, runId)
  if (run.error) {
    return <ErrorText error={run.error} retry={() => void run.refetch()} back={<Link to="/c/$companyId/runs" params={{ companyId }}>Back to the runs</Link>} />
  }
  if (!run.data) return <p className="muted">Loading…</p>
  return <RunDetail companyId={companyId} run={run.data} />
}

function RunDetail({ companyId, run }: { companyId: string; run: Run }) {
  const client = useQueryClient()
  const format = useFormat()
  const agent = useAgent(companyId, run.agent_id)
  const task = useTask(companyId, run.task_id ?? '')
  const cancel = useMutation({
    mutationFn: () => api.runs.cancel(companyId, run.id),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.company(companyId, 'runs') }),
  })
  const transcript = run.transcript ?? []
  const end = useRef<HTMLDivElement>(null)
  const running = !FINISHED.has(run.status)
  // Follow the newest entry while the run is live and the reader is already near the bottom.
  useEffect(() => {
    const nearBottom = window.innerHeight + window.scrollY >= document.body.scrollHeight - 200
    if (running && nearBottom) end.current?.scrollIntoView({ block: 'end' })
  }, [transcript.length, running])

  return (
    <>
      <p><Link to="/c/$companyId/runs" params={{ companyId }}>← Runs</Link></p>
      <div className="page-head">
        <h1>Run of {agent.data?.name ?? 'an agent'}{task.data && <span className="muted"> on {task.data.key}</span>} <Badge value={run.status} /></h1>
        {running && <button className="danger" onClick={() => cancel.mutate()} disabled={cancel.isPending}>Cancel run</button>}
      </div>
      <ErrorText error={cancel.error} />
      <div className="cards">
        <section className="card"><div className="label">Agent</div><div>{agent.data ? <Link to="/c/$companyId/agents/$agentId" params={{ companyId, agentId: run.agent_id }}>{agent.data.name}</Link> : '…'}</div><div className="muted small">{humanize(run.trigger)} run</div></section>
        <section className="card"><div className="label">Task</div><div>{task.data ? <Link to="/c/$companyId/tasks/$taskRef" params={{ companyId, taskRef: task.data.key }}>{task.data.key} {task.data.title}</Link> : '—'}</div></section>
        <section className="card"><div className="label">Cost</div><div className="value">{format.money(run.cost_cents)}</div><div className="muted small">{format.number(run.tokens_in)} tokens in · {format.number(run.tokens_out)} out</div>{run.runner_id && <div className="muted small">on {runnerName(run.runner_id)}</div>}</section>
        <section className="card"><div className="label">Timing</div><div className="small">Queued {format.dateTime(run.created_at)}<br />Started {format.dateTime(run.started_at)}<br />Ended {format.dateTime(run.ended_at)}</div></section>
      </div>
      {run.summary && <section className="panel"><h2>Summary</h2><Markdown text={run.summary} /></section>}
      {run.error && <section className="panel"><h2>Error</h2><p className="error" style={{ whiteSpace: 'pre-wrap' }}>{run.error}</p></section>}
      <section className="panel" aria-label="Transcript">
        <h2>Transcript {running && <span className="live"><span className="dot" />live</span>}</h2>
        <Transcript key={run.transcript_from ?? 0} entries={transcript} live={running} run={{ companyId, id: run.id, from: run.transcript_from ?? 0 }} />
        <div ref={end} />
      </section>
    </>
  )
}
