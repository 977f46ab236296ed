// The Approval record as the API returns it (src/contract/approvals.ts).
export {
  APPROVAL_STATUSES, type Approval, type ApprovalStatus, type ApprovalType, approvalLabel,
} from '../../contract/approvals.ts'

/** Approval columns from alias `ap`. */
export const APPROVAL_COLUMNS = `ap.id, ap.company_id, ap.type, ap.status, ap.agent_id, ap.payload, ap.requested_by_user_id,
  ap.requested_by_agent_id, ap.decided_by_user_id, ap.decided_at, ap.decision_note, ap.new_budget_cents, ap.created_at`
