import { Link, useLocation, useSearch } from '@tanstack/react-router'
import { useEffect } from 'react'
import type { ApprovalStatus } from '#src/client/types.ts'
import { ApprovalCard } from '../components/ApprovalCard.tsx'
import { ErrorText } from '../components/ErrorText.tsx'
import { useCompanyId } from '../lib/company.ts'
import { humanize } from '../lib/format.ts'
import { useApprovals } from '../lib/queries.ts'

export function ApprovalsPage() {
  const companyId = useCompanyId()
  // ?status=approved|rejected|all; pending when absent.
  const wanted = useSearch({ from: '/signed-in/c/$companyId/approvals' }).status ?? 'pending'
  const status: ApprovalStatus | '' = wanted === 'all' ? '' : wanted
  const approvals = useApprovals(companyId, status || undefined)
  // A link to one approval (#approval-<id>) brings it into view once the list has loaded.
  const hash = useLocation({ select: (location) => location.hash })
  const loaded = !!approvals.data
  useEffect(() => {
    if (loaded && hash) document.getElementById(hash)?.scrollIntoView({ block: 'center' })
  }, [loaded, hash])
  return (
    <>
      <div className="page-head">
        <h1>Approvals</h1>
        <div role="group" aria-label="Status" className="actions">
          {(['pending', 'approved', 'rejected', ''] as const).map((s) => (
            <Link key={s || 'all'} to="/c/$companyId/approvals" params={{ companyId }} search={s === 'pending' ? {} : { status: s || 'all' }} replace role="button" className={`button${status === s ? ' primary' : ''}`} aria-pressed={status === s}>{s ? humanize(s) : 'All'}</Link>
          ))}
        </div>
      </div>
      <ErrorText error={approvals.error} retry={() => void approvals.refetch()} />
      {approvals.data?.length === 0 && <p className="empty">No approvals here.</p>}
      {approvals.data?.map((approval) => <ApprovalCard key={approval.id} companyId={companyId} approval={approval} highlighted={hash === `approval-${approval.id}`} />)}
    </>
  )
}
