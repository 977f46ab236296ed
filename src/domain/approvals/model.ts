// The Approval record as the API returns it (API-DECISIONS.md "Records").

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected'] as const
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number]
export type ApprovalType = 'hire_agent' | 'budget_override' | 'action'

export interface Approval {
  id: string
  company_id: string
  type: ApprovalType
  status: ApprovalStatus
  agent_id: string | null
  payload: Record<string, unknown>
  requested_by_user_id: string | null
  requested_by_agent_id: string | null
  decided_by_user_id: string | null
  decided_at: string | null
  decision_note: string | null
  new_budget_cents: number | null
  created_at: string
}

/** Approval columns from alias `ap`. */
export const APPROVAL_COLUMNS = `ap.id, ap.company_id, ap.type, ap.status, ap.agent_id, ap.payload, ap.requested_by_user_id,
  ap.requested_by_agent_id, ap.decided_by_user_id, ap.decided_at, ap.decision_note, ap.new_budget_cents, ap.created_at`

/** How the audit trail and lists name an approval. */
export function approvalLabel(type: string, agentName: string | null): string {
  const who = agentName ?? 'unknown agent'
  if (type === 'hire_agent') return `Hire ${who}`
  if (type === 'budget_override') return `Budget override for ${who}`
  return `Action by ${who}`
}
