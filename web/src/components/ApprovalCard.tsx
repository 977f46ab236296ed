// One approval: what it asks, and for a pending one the decision form (note, and for a budget
// override an optional new budget).
import { useQueryClient } from '@tanstack/react-query'
import type { Agent, Approval } from '#src/client/types.ts'
import { AgentSettings } from './agents/AgentSettings.tsx'
import { api } from '../lib/api.ts'
import { humanize, parseCents } from '../lib/format.ts'
import { useFormat } from '../lib/preferences.tsx'
import { keys, useAgents, useMembers } from '../lib/queries.ts'
import { Link } from '@tanstack/react-router'
import { useForm, useSubmit } from '../lib/useForm.ts'
import { Badge } from './Badge.tsx'
import { ErrorText } from './ErrorText.tsx'
import { Field } from './form.tsx'

/** `highlighted`: the approval a link pointed at (`#approval-<id>`, e.g. from a paused agent's page). */
export function ApprovalCard({ companyId, approval, highlighted = false }: { companyId: string; approval: Approval; highlighted?: boolean }) {
  const client = useQueryClient()
  const format = useFormat()
  const agents = useAgents(companyId, true)
  const members = useMembers(companyId)
  const agent = agents.data?.find((a) => a.id === approval.agent_id)
  // Who asked and who decided, by name (a person who left the company, or an agent no longer here, said so).
  const person = (id: string | null) => (id ? (members.data?.find((m) => m.user_id === id)?.name ?? 'someone no longer in the company') : null)
  const asker = approval.requested_by_agent_id
    ? (agents.data?.find((a) => a.id === approval.requested_by_agent_id)?.name ?? 'an agent no longer here')
    : person(approval.requested_by_user_id)
  const form = useForm({ note: '', budget: '' })
  const payload = approval.payload as { spend_cents?: number; budget_cents?: number; month?: string }

  function decide(verdict: 'approve' | 'reject') {
    return async () => {
      const note = form.values.note.trim() || undefined
      if (verdict === 'approve') {
        const budget = form.values.budget.trim() ? parseCents(form.values.budget) : undefined
        if (budget === null) throw new Error('New budget: enter an amount such as 50 or 12.50.')
        await api.approvals.approve(companyId, approval.id, { decision_note: note, ...(budget !== undefined ? { new_budget_cents: budget } : {}) })
      } else {
        await api.approvals.reject(companyId, approval.id, { decision_note: note })
      }
      await client.invalidateQueries({ queryKey: keys.company(companyId) })
    }
  }
  const approve = useSubmit(decide('approve'))
  const reject = useSubmit(decide('reject'))
  const pending = approval.status === 'pending'

  return (
    <article id={`approval-${approval.id}`} className={`panel${highlighted ? ' highlighted' : ''}`} aria-label={`${humanize(approval.type)} approval`} aria-current={highlighted || undefined} data-approval={approval.id}>
      <div className="row">
        <strong>{humanize(approval.type)}</strong>
        <Badge value={approval.status} />
        {agent && <Link to="/c/$companyId/agents/$agentId" params={{ companyId, agentId: agent.id }}>{agent.name}</Link>}
        <span className="grow" />
        <span className="muted small">{asker ? `asked by ${asker}, ` : ''}{format.relative(approval.created_at)}</span>
      </div>
      {approval.type === 'budget_override' && (
        <p style={{ marginTop: 8 }}>
          Spent {format.money(payload.spend_cents)} of a {format.money(payload.budget_cents)} budget in {payload.month}. The agent is paused until this is approved.
        </p>
      )}
      {approval.type === 'action' && typeof approval.payload?.reason === 'string' && (
        // The runaway breaker's (payload with window_minutes) resumes the agent when approved.
        <p style={{ marginTop: 8 }}>{approval.payload.reason}.{'window_minutes' in approval.payload ? ' The agent is paused; approving resumes it and restarts its count.' : ''}</p>
      )}
      {approval.type === 'hire_agent' && <p style={{ marginTop: 8 }}>Hire {agent?.name ?? 'this agent'}{agent?.title ? `, ${agent.title}` : ''}?</p>}
      {approval.type === 'hire_agent' && pending && agent && (
        // Every setting the hire would start with (the approval's payload holds what was proposed),
        // seen before Approve: an agent's proposal must not pass unread.
        <details open style={{ marginTop: 8 }}>
          <summary className="small muted">Proposed settings</summary>
          <AgentSettings agent={{ ...agent, ...(approval.payload as Partial<Agent>) }} />
        </details>
      )}
      {!pending && (
        <p className="muted small">{humanize(approval.status)}{approval.decided_by_user_id ? ` by ${person(approval.decided_by_user_id)}` : ''} {format.relative(approval.decided_at)}{approval.decision_note ? `: “${approval.decision_note}”` : ''}{approval.new_budget_cents != null ? ` · new budget ${format.money(approval.new_budget_cents)}` : ''}</p>
      )}
      {pending && (
        <form onSubmit={(e) => e.preventDefault()}>
          <ErrorText error={approve.error ?? reject.error} />
          <div className="form-grid">
            <Field label="Note" hint="optional"><input {...form.bind('note')} /></Field>
            {approval.type === 'budget_override' && (
              <Field label="New monthly budget" hint="optional"><input inputMode="decimal" placeholder="0.00" {...form.bind('budget')} /></Field>
            )}
          </div>
          <div className="actions">
            <button type="button" className="primary" onClick={() => approve.onSubmit()} disabled={approve.pending || reject.pending}>Approve</button>
            <button type="button" className="danger" onClick={() => reject.onSubmit()} disabled={approve.pending || reject.pending}>Reject</button>
          </div>
        </form>
      )}
    </article>
  )
}
