import type { Queryable } from '../../server/db/db.ts'
import { notFound } from '../../server/errors.ts'
import { APPROVAL_COLUMNS, type Approval, type ApprovalStatus } from './model.ts'

/** The company's approvals, newest first (approvals_company, or approvals_pending for `pending`). */
export function listApprovals(q: Queryable, companyId: string, status?: ApprovalStatus): Promise<Approval[]> {
  return q.many<Approval>(
    `SELECT ${APPROVAL_COLUMNS} FROM approvals ap
      WHERE ap.company_id = $1 ${status ? 'AND ap.status = $2' : ''}
      ORDER BY ap.created_at DESC, ap.id DESC`,
    status ? [companyId, status] : [companyId],
  )
}

export async function getApproval(q: Queryable, companyId: string, approvalId: string): Promise<Approval> {
  const approval = await q.one<Approval>(`SELECT ${APPROVAL_COLUMNS} FROM approvals ap WHERE ap.id = $1 AND ap.company_id IS NOT DISTINCT FROM $2`, [
    approvalId,
    companyId,
  ])
  if (!approval) throw notFound('Approval')
  return approval
}
