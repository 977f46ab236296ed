import { useState } from 'react'
import type { ApprovalStatus } from '#src/client/types.ts'
import { ApprovalCard } from '../components/ApprovalCard.tsx'
import { ErrorText } from '../components/ErrorText.tsx'
import { useCompanyId } from '../lib/company.ts'
import { humanize } from '../lib/format.ts'
import { useApprovals } from '../lib/queries.ts'

export function ApprovalsPage() {
  const companyId = useCompanyId()
  const [status, setStatus] = useState<ApprovalStatus | ''>('pending')
  const approvals = useApprovals(companyId, status || undefined)
  return (
    <>
      <div className="page-head">
        <h1>Approvals</h1>
        <div role="group" aria-label="Status" className="actions">
          {(['pending', 'approved', 'rejected', ''] as const).map((s) => (
            <button key={s || 'all'} className={status === s ? 'primary' : ''} aria-pressed={status === s} onClick={() => setStatus(s)}>{s ? humanize(s) : 'All'}</button>
          ))}
        </div>
      </div>
      <ErrorText error={approvals.error} />
      {approvals.data?.length === 0 && <p className="empty">No approvals here.</p>}
      {approvals.data?.map((approval) => <ApprovalCard key={approval.id} companyId={companyId} approval={approval} />)}
    </>
  )
}
