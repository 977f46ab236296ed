// A run's transcript. The agent's words show in full; a tool call (role `tool`) shows as one line
// that opens to its whole text, so a run with many tool calls stays readable while it grows; so
// does a runner's note of several lines (its first line, the rest under Details).
import type { Run, TranscriptEntry } from '#src/client/types.ts'
import { humanize } from '../../lib/format.ts'
import { useFormat } from '../../lib/preferences.tsx'
import { Markdown } from '../Markdown.tsx'

/** Run statuses after which nothing more happens. */
export const FINISHED = new Set(['succeeded', 'failed', 'cancelled'])

const firstLine = (text: string) => {
  const line = text.split('\n', 1)[0]
  return line.length > 140 ? `${line.slice(0, 140)}…` : line
}

export function Transcript({ entries, live }: { entries: TranscriptEntry[]; live: boolean }) {
  const format = useFormat()
  if (entries.length === 0) return <p className="empty">{live ? 'Nothing yet; entries appear here as the agent works.' : 'No transcript.'}</p>
  return (
    <div className="transcript" aria-live={live ? 'polite' : undefined}>
      {entries.map((entry, index) =>
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
