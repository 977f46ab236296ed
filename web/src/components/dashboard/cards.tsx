// The dashboard's cards, by id (the ids stored in preferences.dashboard.hidden and .order).
import { type ReactNode, useState } from 'react'
import type { Dashboard } from '#src/client/types.ts'
import { type Formatter, humanize } from '../../lib/format.ts'
import { Link } from '@tanstack/react-router'
import { runnerName } from '../../lib/names.ts'
import { WaitingNote } from '../runs/WaitingNote.tsx'
import { Badge } from '../Badge.tsx'
import { RunTask } from '../TaskRef.tsx'
import { BarChart, type Series } from '../BarChart.tsx'
import { thisMonth } from '../../lib/spend.ts'
import { ForecastAgents, ForecastMethod } from './Forecast.tsx'

export interface CardContext {
  data: Dashboard
  format: Formatter
  companyId: string
  agentName: (id: string) => string
}

export interface CardDef {
  id: string
  title: string
  wide?: boolean
  render: (ctx: CardContext) => ReactNode
}

const stat = (value: ReactNode, note?: ReactNode) => (
  <>
    <div className="value">{value}</div>
    {note && <div className="muted small">{note}</div>}
  </>
)

export const CARDS: CardDef[] = [
  {
    id: 'agents',
    title: 'Agents',
    render: ({ data }) => stat(data.agents_total, `${data.agents_running} running · ${data.agents_paused} paused`),
  },
  { id: 'tasks-in-progress', title: 'Tasks in progress', render: ({ data }) => stat(data.tasks_in_progress) },
  { id: 'tasks-blocked', title: 'Blocked tasks', render: ({ data }) => stat(data.tasks_blocked) },
  {
    id: 'pending-approvals',
    title: 'Pending approvals',
    render: ({ data, companyId }) => stat(data.pending_approvals, <Link to="/c/$companyId/approvals" params={{ companyId }}>Review</Link>),
  },
  { id: 'spend', title: 'Spend this month', wide: true, render: (ctx) => <SpendCard {...ctx} /> },
  { id: 'activity-chart', title: 'Daily activity', wide: true, render: (ctx) => <SeriesCard {...ctx} /> },
  { id: 'active-runs', title: 'Active runs', wide: true, render: (ctx) => <ActiveRuns {...ctx} /> },
  { id: 'for-you', title: 'For you', wide: true, render: (ctx) => <ForYou {...ctx} /> },
  { id: 'tasks-by-status', title: 'Tasks by status', render: ({ data }) => <Counts counts={data.tasks_by_status} /> },
  { id: 'tasks-by-priority', title: 'Tasks by priority', render: ({ data }) => <Counts counts={data.tasks_by_priority} /> },
]

/** Spend so far against the company budget, the month-end projection, and the agents that spend most. */
function SpendCard({ data, format, companyId }: CardContext) {
  const budget = data.monthly_budget_cents
  const projected = data.forecast.month_end_cents
  return (
    <div className="spend-card">
      <div>
        {stat(
          format.money(data.spend_mtd_cents),
          budget > 0 ? `of ${format.money(budget)} (${Math.round((data.spend_mtd_cents / budget) * 100)}%)` : 'no company budget',
        )}
        <p className="forecast-line" data-month-end>
          Month end: <strong>{format.money(projected)}</strong>
          {budget > 0 && <span className={projected > budget ? 'warn-text' : 'muted'}> {projected > budget ? 'over' : 'within'} budget</span>}
        </p>
        <Link className="small" to="/c/$companyId/costs" params={{ companyId }}>All costs</Link>
      </div>
      <div>
        <ForecastAgents companyId={companyId} forecast={data.forecast} month={thisMonth()} limit={5} />
        <ForecastMethod forecast={data.forecast} />
      </div>
    </div>
  )
}

function Counts({ counts }: { counts: Record<string, number> }) {
  const entries = Object.entries(counts).filter(([, n]) => n > 0)
  if (entries.length === 0) return <p className="empty">No tasks.</p>
  return (
    <table>
      <tbody>
        {entries.map(([name, n]) => <tr key={name}><td>{humanize(name)}</td><td className="right">{n}</td></tr>)}
      </tbody>
    </table>
  )
}

const VIEWS = {
  cost: { label: 'Cost', money: true, series: [{ key: 'cost_cents', label: 'Cost', color: 'var(--accent)' }] },
  runs: {
    label: 'Runs',
    money: false,
    series: [
      { key: 'runs_succeeded', label: 'Succeeded', color: 'var(--ok)' },
      { key: 'runs_failed', label: 'Failed', color: 'var(--danger)' },
    ],
  },
  tasks: {
    label: 'Tasks',
    money: false,
    series: [
      { key: 'tasks_created', label: 'Created', color: 'var(--info)' },
      { key: 'tasks_completed', label: 'Completed', color: 'var(--ok)' },
    ],
  },
} as const

function SeriesCard({ data, format }: CardContext) {
  const [view, setView] = useState<keyof typeof VIEWS>('cost')
  const chosen = VIEWS[view]
  const series: Series[] = chosen.series.map((s) => ({ label: s.label, color: s.color, values: data.series.map((day) => day[s.key]) }))
  return (
    <>
      <div className="actions" role="group" aria-label="Chart">
        {(Object.keys(VIEWS) as (keyof typeof VIEWS)[]).map((key) => (
          <button key={key} className={key === view ? 'primary' : ''} aria-pressed={key === view} onClick={() => setView(key)}>{VIEWS[key].label}</button>
        ))}
      </div>
      <BarChart labels={data.series.map((d) => format.day(d.date))} series={series} format={chosen.money ? format.money : format.number} />
    </>
  )
}

function ActiveRuns({ data, format, companyId, agentName }: CardContext) {
  if (data.active_runs.length === 0) return <p className="empty">No run is queued or running.</p>
  return (
    <div className="table-wrap">
      <table>
        <tbody>
          {data.active_runs.map((run) => (
            <tr key={run.id}>
              <td><Link to="/c/$companyId/runs/$runId" params={{ companyId, runId: run.id }}>{agentName(run.agent_id)}</Link></td>
              <td className="free"><RunTask companyId={companyId} run={run} none={<span className="muted">{humanize(run.trigger)} run</span>} /></td>
              <td><Badge value={run.status} /></td>
              <td className="muted">{run.runner_id ? `on ${runnerName(run.runner_id)}` : <WaitingNote companyId={companyId} run={run} compact />}</td>
              <td className="muted right">{format.relative(run.started_at ?? run.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

function ForYou({ data, companyId }: CardContext) {
  const you = data.for_you
  if (!you) return <p className="empty">Nothing for you.</p>
  return (
    <>
      <p>{you.open_tasks} open tasks you created · {you.blocked_tasks} blocked</p>
      {you.recent.length === 0 ? <p className="empty">No open task of yours.</p> : (
        <ul style={{ margin: 0, paddingLeft: 18 }}>
          {you.recent.map((task) => (
            <li key={task.id}><Link to="/c/$companyId/tasks/$taskRef" params={{ companyId, taskRef: task.key }}>{task.key}</Link> {task.title} <Badge value={task.status} /></li>
          ))}
        </ul>
      )}
    </>
  )
}

/** The cards in the user's order (unknown ids ignored, cards missing from the order appended). */
export function orderedCards(order: string[] = []): CardDef[] {
  const byId = new Map(CARDS.map((card) => [card.id, card]))
  const first = order.map((id) => byId.get(id)).filter((card): card is CardDef => !!card)
  return [...first, ...CARDS.filter((card) => !order.includes(card.id))]
}
