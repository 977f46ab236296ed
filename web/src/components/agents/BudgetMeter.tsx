import { useFormat } from '../../lib/preferences.tsx'

/** Month-to-date spend against a monthly budget (0 = no limit). */
export function BudgetMeter({ spent, budget }: { spent: number; budget: number }) {
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
    </div>
  )
}
