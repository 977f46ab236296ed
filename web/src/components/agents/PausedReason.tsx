// Why a paused agent is paused: the newest pending approval about it says so (a budget override
// when it reached its monthly budget, an `action` approval from the runaway breaker or a run of
// repeats), with a link to that approval on the approvals page.
import { Link } from '@tanstack/react-router'
import type { Agent, Approval } from '#src/client/types.ts'
import { useFormat } from '../../lib/preferences.tsx'
import { useApprovals } from '../../lib/queries.ts'

export function PausedReason({ companyId, agent }: { companyId: string; agent: Agent }) {
  const format = useFormat()
  const approvals = useApprovals(companyId, 'pending')
  if (agent.status !== 'paused' || !approvals.data) return null
  // Pending approvals come newest first.
  const approval = approvals.data.find((a) => a.agent_id === agent.id && (a.type === 'budget_override' || a.type === 'action'))
  if (!approval) {
    return <p className="notice paused-reason" role="note" aria-label="Why paused">{agent.name} is paused, and no approval about it is waiting: Resume starts it again.</p>
  }
  return (
    <p className="notice paused-reason" role="note" aria-label="Why paused">
      <strong>{agent.name} is paused:</strong> {reason(approval, format.money)}.{' '}
      <Link to="/c/$companyId/approvals" params={{ companyId }} hash={`approval-${approval.id}`}>See the approval</Link> to resume it.
    </p>
  )
}

function reason(approval: Approval, money: (cents: number) => string): string {
  const payload = (approval.payload ?? {}) as { spend_cents?: number; budget_cents?: number; month?: string; reason?: string }
  if (approval.type === 'budget_override') {
    const figures = payload.spend_cents !== undefined && payload.budget_cents !== undefined ? ` (${money(payload.spend_cents)} of ${money(payload.budget_cents)} in ${payload.month})` : ''
    return `it reached its monthly budget${figures}`
  }
  return payload.reason?.replace(/\.$/, '') ?? 'an approval about it is waiting'
}
