import type { Forecast } from '#src/client/types.ts'
import { budgetReachedText, thisMonth } from '../../lib/spend.ts'
import { useFormat } from '../../lib/preferences.tsx'

type AgentForecast = Forecast['by_agent'][number]

/**
 * Month-to-date spend against a monthly budget (0 = no limit), with the month-end projection and
 * when the budget is reached at this pace (the API's forecast; absent while it loads).
 */
export function BudgetMeter({ spent, budget, forecast }: { spent: number; budget: number; forecast?: AgentForecast | null }) {
  const format = useFormat()
  const share = budget > 0 ? Math.min(1, spent / budget) : 0
  const tone = share >= 1 ? 'var(--danger)' : share >= 0.8 ? 'var(--warn)' : 'var(--accent)'
  return (
    <div>
      <div className="value" style={{ fontSize: '1.4rem', fontWeight: 650 }}>{format.money(spent)}</div>
      <div className="muted">{budget > 0 ? `spent this month of ${format.money(budget)}` : 'spent this month · no budget limit'}</div>
      {budget > 0 && (
        <div role="meter" aria-valuemin={0} aria-valuemax={budget} aria-valuenow={spent} aria-label="Budget used"
          style={{ height: 8, background: 'var(--panel-2)', borderRadius: 4, marginTop: 8, overflow: 'hidden' }}>
          <div style={{ width: `${share * 100}%`, height: '100%', background: tone }} />
        </div>
      )}
      {forecast !== undefined && (
        <div className="small forecast-line" data-agent-forecast>
          Month end: <strong>{format.money(forecast?.month_end_cents ?? 0)}</strong>
          {budget > 0 && <>; {budgetReachedText(format, budget, forecast?.budget_reached_on ?? null, thisMonth())}</>}
        </div>
      )}
    </div>
  )
}
