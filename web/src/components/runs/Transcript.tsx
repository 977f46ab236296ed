// A run's transcript. The agent's words show in full; a tool call (role `tool`) shows as one line
// that opens to its whole text, so a run with many tool calls stays readable while it grows; so
// does a runner's note of several lines (its first line, the rest under Details).
import { useState } from 'react'
import type { Run, TranscriptEntry } from '#src/client/types.ts'
import { api } from '../../lib/api.ts'
import { humanize } from '../../lib/format.ts'
import { useFormat } from '../../lib/preferences.tsx'
import { Markdown } from '../Markdown.tsx'

/** Run statuses after which nothing more happens. */
export const FINISHED = new Set(['succeeded', 'failed', 'cancelled'])

const firstLine = (text: string) => {
  const line = text.split('\n', 1)[0]
  return line.length > 140 ? `${line.slice(0, 140)}…` : line
}

/** Entries fetched per click on "Show earlier entries". */
const EARLIER_PAGE = 500

/**
 * `entries` are the run's from index `run.from` on (a long run's answer carries its last 2,000):
 * the ones before are read a page at a time, on request, from GET /runs/{id}/transcript. Give it
 * `key={run.transcript_from}`, so that a run fetched afresh from elsewhere starts it anew.
 */
export function Transcript({ entries, live, run }: { entries: TranscriptEntry[]; live: boolean; run?: { companyId: string; id: string; from: number } }) {
  const format = useFormat()
  const [earlier, setEarlier] = useState<TranscriptEntry[]>([])
  const [loading, setLoading] = useState(false)
  const [failed, setFailed] = useState<string | null>(null)
  const left = (run?.from ?? 0) - earlier.length
  const loadEarlier = async () => {
    if (!run) return
    const after = Math.max(0, left - EARLIER_PAGE)
    setLoading(true)
    setFailed(null)
    try {
      const page = await api.runs.transcript(run.companyId, run.id, { after, limit: left - after })
      setEarlier([...page.entries, ...earlier])
    } catch (err) {
      setFailed(err instanceof Error ? err.message : String(err))
    } finally {
      setLoading(false)
    }
  }
  const shown = earlier.length ? [...earlier, ...entries] : entries
  if (shown.length === 0 && left <= 0) return <p className="empty">{live ? 'Nothing yet; entries appear here as the agent works.' : 'No transcript.'}</p>
  return (
    <div className="transcript" aria-live={live ? 'polite' : undefined}>
      {left > 0 && (
        <p className="muted small">
          {format.number(left)} earlier {left === 1 ? 'entry is' : 'entries are'} not shown.{' '}
          <button className="link small" onClick={loadEarlier} disabled={loading}>{loading ? 'Loading…' : 'Show earlier entries'}</button>
          {failed && <span className="error"> {failed}</span>}
        </p>
      )}
      {shown.map((entry, index) =>
        entry.role === 'tool' ? (
          <details key={index} className="entry tool">
            <summary title={format.dateTime(entry.timestamp)}><span className="muted">Tool ·</span> {firstLine(entry.text)}</summary>
            {entry.text}
          </details>
        ) : entry.role === 'system' && entry.text.trim().includes('\n') ? (
          // The runner's own lines beyond the first (a CLI's command line, temporary paths) are for
          // whoever debugs the runner: folded under Details.
          <details key={index} className="entry system">
            <summary title={format.dateTime(entry.timestamp)}>{firstLine(entry.text)} <span className="muted">· Details</span></summary>
            {entry.text.slice(entry.text.indexOf('\n') + 1)}
          </details>
        ) : (
          <div key={index} className={`entry ${entry.role}`}>
            <div className="when">{humanize(entry.role)} · {format.dateTime(entry.timestamp)}</div>
            {/* The agent writes Markdown; what the runner and tools print is shown as printed. */}
            {entry.role === 'agent' ? <Markdown text={entry.text} /> : entry.text}
          </div>
        ),
      )}
    </div>
  )
}

/** Tokens and cost so far; grows with the run. */
export function Usage({ run }: { run: Run }) {
  const format = useFormat()
  return (
    <span className="muted small" data-usage>
      {format.money(run.cost_cents)} · {format.number(run.tokens_in)} tokens in · {format.number(run.tokens_out)} out
    </span>
  )
}
