// An agent's settings, read-only: heartbeat, adapter and its own settings, the spend limits.
import { cronInWords } from '../../lib/cron-words.ts'
import type { ReactNode } from 'react'
import type { Agent } from '#src/client/types.ts'
import { adapterLabel } from '../../lib/adapters.ts'
import { useFormat } from '../../lib/preferences.tsx'
import { nextFire } from '#src/contract/schedule.ts'

const ADAPTER_SETTING_LABELS: Record<string, string> = {
  model: 'Model',
  max_turns: 'Max turns',
  url: 'URL',
  timeout_seconds: 'Timeout (seconds)',
  secret_env: 'Secret variable',
  command: 'Command',
  args: 'Extra arguments',
  env: 'Environment passed through',
  fallback: 'Fallback models',
}

const settingText = (key: string, value: unknown) =>
  key === 'fallback' ? (value as { model: string }[]).map((f) => f.model).join(', then ')
    : Array.isArray(value) ? value.join(' ') : String(value)

export function AgentSettings({ agent }: { agent: Agent }) {
  const format = useFormat()
  const config = Object.entries(agent.adapter_config ?? {}).filter(([, value]) => value !== undefined && value !== null)
  const item = (label: string, value: ReactNode, wide = false) => (
    <div key={label} style={wide ? { gridColumn: '1 / -1' } : undefined}><dt className="muted">{label}</dt><dd>{value}</dd></div>
  )
  return (
    <>
      <dl className="form-grid" aria-label="General">
        {item('Works with', adapterLabel(agent.adapter))}
        {config.map(([key, value]) => item(ADAPTER_SETTING_LABELS[key] ?? key, <span className="mono">{settingText(key, value)}</span>))}
        {item('Heartbeat', agent.heartbeat_cron ? <Heartbeat cron={agent.heartbeat_cron} /> : 'None')}
        {item('Hired', format.date(agent.created_at))}
      </dl>
      <h3 className="small muted">Spend limits</h3>
      <dl className="form-grid" aria-label="Spend limits">
        {item('Monthly budget', agent.monthly_budget_cents > 0 ? format.money(agent.monthly_budget_cents) : 'No limit')}
        {item('Cap per run', agent.max_run_cost_cents > 0 ? format.money(agent.max_run_cost_cents) : 'No cap')}
        {item('Runs per hour', agent.max_runs_per_hour > 0 ? `at most ${agent.max_runs_per_hour}, then paused for approval` : 'No limit')}
        {item('Pause on repeats', agent.pause_on_repeat ? 'On: paused after 3 runs on one task end the same way' : 'Off')}
        {item('Idle heartbeats', agent.heartbeat_skip_idle ? 'Skipped while it has nothing to do' : 'Always run')}
      </dl>
      <dl className="form-grid">{item('Instructions', <span style={{ whiteSpace: 'pre-wrap' }}>{agent.instructions ?? '—'}</span>, true)}</dl>
    </>
  )
}

/** The heartbeat's cron and when it wakes the agent next, or that the scheduler cannot read it. */
function Heartbeat({ cron }: { cron: string }) {
  const format = useFormat()
  const next = nextFire(cron)
  return (
    <>
      <span title={cron}>{'error' in next ? <span className="mono">{cron}</span> : cronInWords(cron)}</span>{' '}
      {'error' in next
        ? <span className="danger-text small" title={next.error}>(not a valid schedule: it never wakes the agent)</span>
        : next.at && <span className="muted small" title={format.dateTime(next.at)}>(next {format.relative(next.at)})</span>}
    </>
  )
}
