import { Link } from '@tanstack/react-router'
import { useState } from 'react'
import { useStartProgress } from '../lib/start.ts'
import { ErrorText } from '../components/ErrorText.tsx'
import { type CardDef, orderedCards } from '../components/dashboard/cards.tsx'
import { useCompanyId } from '../lib/company.ts'
import { useFormat, useSavePreferences } from '../lib/preferences.tsx'
import { useAgents, useCompany, useDashboard, useMe } from '../lib/queries.ts'

const RANGES = [7, 14, 30] as const

export function DashboardPage() {
  const companyId = useCompanyId()
  const me = useMe()
  const format = useFormat()
  const save = useSavePreferences()
  const company = useCompany(companyId)
  const agents = useAgents(companyId, true)
  const prefs = me.data?.preferences.dashboard ?? {}
  const days = prefs.range_days ?? 14
  const dashboard = useDashboard(companyId, days)
  const [customising, setCustomising] = useState(false)

  const cards = orderedCards(prefs.order)
  const hidden = new Set(prefs.hidden ?? [])
  const names = new Map((agents.data ?? []).map((a) => [a.id, a.name]))
  const agentName = (id: string) => names.get(id) ?? 'Agent'

  function move(card: CardDef, step: -1 | 1) {
    // Swap with the nearest shown card, so a move is never absorbed by a hidden one.
    const shown = cards.filter((c) => !hidden.has(c.id)).map((c) => c.id)
    const neighbour = shown[shown.indexOf(card.id) + step]
    if (!neighbour) return
    const ids = cards.map((c) => c.id)
    const at = ids.indexOf(card.id)
    const to = ids.indexOf(neighbour)
    ;[ids[at], ids[to]] = [ids[to], ids[at]]
    save.mutate({ dashboard: { order: ids } })
  }
  function setHidden(card: CardDef, hide: boolean) {
    const next = new Set(hidden)
    if (hide) next.add(card.id)
    else next.delete(card.id)
    save.mutate({ dashboard: { hidden: [...next] } })
  }

  return (
    <>
      <div className="page-head">
        <div>
          <h1>{company.data?.name ?? 'Dashboard'}</h1>
          {company.data?.mission && <p className="muted" style={{ margin: 0 }}>{company.data.mission}</p>}
        </div>
        <div className="actions">
          <label className="row" style={{ gap: 6 }}>
            Range
            <select value={days} style={{ width: 'auto' }} onChange={(e) => save.mutate({ dashboard: { range_days: Number(e.target.value) as 7 | 14 | 30 } })}>
              {RANGES.map((n) => <option key={n} value={n}>{n} days</option>)}
            </select>
          </label>
          <button aria-pressed={customising} onClick={() => setCustomising((c) => !c)}>{customising ? 'Done' : 'Customise'}</button>
        </div>
      </div>
      <StartLeft companyId={companyId} />
      <ErrorText error={dashboard.error ?? save.error} retry={() => void dashboard.refetch()} />
      {customising && hidden.size > 0 && (
        <div className="notice actions">
          Hidden:
          {cards.filter((c) => hidden.has(c.id)).map((card) => (
            <button key={card.id} onClick={() => setHidden(card, false)}>Show {card.title}</button>
          ))}
        </div>
      )}
      {dashboard.data ? (
        <div className="cards">
          {cards.filter((card) => !hidden.has(card.id)).map((card, index, shown) => (
            <section key={card.id} className="card" style={card.wide ? { gridColumn: '1 / -1' } : undefined} aria-label={card.title} data-card={card.id}>
              {customising && (
                <span className="card-tools">
                  <button onClick={() => move(card, -1)} disabled={index === 0} aria-label={`Move ${card.title} earlier`}>◀</button>
                  <button onClick={() => move(card, 1)} disabled={index === shown.length - 1} aria-label={`Move ${card.title} later`}>▶</button>
                  <button onClick={() => setHidden(card, true)} aria-label={`Hide ${card.title}`}>✕</button>
                </span>
              )}
              <div className="label">{card.title}</div>
              {card.render({ data: dashboard.data!, format, companyId, agentName })}
            </section>
          ))}
        </div>
      ) : !dashboard.error && <p className="muted">Loading…</p>}
    </>
  )
}

const STEP_NAMES = { hire: 'hire an agent', runner: 'connect a runner', task: 'give it a task' } as const

/** What is left of the guided start, until every step is done or skipped. */
function StartLeft({ companyId }: { companyId: string }) {
  const progress = useStartProgress(companyId)
  const left = progress.left()
  if (!progress.loaded || left.length === 0) return null
  return (
    <p className="notice" role="note" aria-label="Getting started">
      Getting started: {left.map((step) => STEP_NAMES[step]).join(', ')}.{' '}
      <Link to="/c/$companyId/start" params={{ companyId }}>Continue</Link>
    </p>
  )
}
