import { type Static, Type } from 'typebox'
import { Cents, FreeObject, Nullable, OptionalBody, OrNull, StringEnum, Timestamp, Uuid } from './common.ts'

// Approvals: hires, budget overrides and actions waiting for a person.

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected'] as const
export const ApprovalStatus = StringEnum(APPROVAL_STATUSES)
export type ApprovalStatus = Static<typeof ApprovalStatus>
export const APPROVAL_TYPES = ['hire_agent', 'budget_override', 'action'] as const
export const ApprovalType = StringEnum(APPROVAL_TYPES)
export type ApprovalType = Static<typeof ApprovalType>

/** How the audit trail and lists name an approval. */
export function approvalLabel(type: string, agentName: string | null): string {
  const who = agentName ?? 'unknown agent'
  if (type === 'hire_agent') return `Hire ${who}`
  if (type === 'budget_override') return `Budget override for ${who}`
  return `Action by ${who}`
}

export const ListApprovalsQuery = Type.Object({ status: Type.Optional(ApprovalStatus) })

const Note = Nullable(Type.String())
export const ApproveBody = OptionalBody(
  Type.Object({ decision_note: Type.Optional(Note), new_budget_cents: Type.Optional(Nullable(Cents)) }),
)
export const RejectBody = OptionalBody(Type.Object({ decision_note: Type.Optional(Note) }))
export interface Decision {
  decision_note?: string | null
  /** Approve only. */
  new_budget_cents?: number | null
}

export const Approval = Type.Object({
  id: Uuid,
  company_id: Uuid,
  type: ApprovalType,
  status: ApprovalStatus,
  agent_id: OrNull(Uuid),
  /** For `budget_override`: {spend_cents, budget_cents, month}. */
  payload: FreeObject,
  requested_by_user_id: OrNull(Uuid),
  requested_by_agent_id: OrNull(Uuid),
  decided_by_user_id: OrNull(Uuid),
  decided_at: OrNull(Timestamp),
  decision_note: OrNull(Type.String()),
  new_budget_cents: OrNull(Type.Integer()),
  created_at: Timestamp,
})
export type Approval = Static<typeof Approval>
