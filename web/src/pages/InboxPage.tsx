import { ApprovalCard } from '../components/ApprovalCard.tsx'
import { ErrorText } from '../components/ErrorText.tsx'
import { RunTable } from '../components/RunTable.tsx'
import { TaskTable } from '../components/tasks/TaskTable.tsx'
import { useCompanyId } from '../lib/company.ts'
import { useAgents, useInbox } from '../lib/queries.ts'

/** What waits for a person: pending approvals, blocked or in-review tasks, recent failures. */
export function InboxPage() {
  const companyId = useCompanyId()
  const inbox = useInbox(companyId)
  const agents = useAgents(companyId, true)
  const agentMap = new Map((agents.data ?? []).map((a) => [a.id, a]))
  const empty = inbox.data && inbox.data.approvals.length + inbox.data.tasks.length + inbox.data.failed_runs.length === 0
  return (
    <>
      <div className="page-head"><h1>Inbox</h1></div>
      <ErrorText error={inbox.error} retry={() => void inbox.refetch()} />
      {empty && <p className="notice">All clear: nothing waits for you.</p>}
      {inbox.data && inbox.data.approvals.length > 0 && (
        <section aria-label="Pending approvals">
          <h2>Approvals</h2>
          {inbox.data.approvals.map((approval) => <ApprovalCard key={approval.id} companyId={companyId} approval={approval} />)}
        </section>
      )}
      {inbox.data && inbox.data.tasks.length > 0 && (
        <section className="panel" aria-label="Tasks to look at">
          <h2>Blocked or in review</h2>
          <TaskTable companyId={companyId} tasks={inbox.data.tasks} agents={agentMap} />
        </section>
      )}
      {inbox.data && inbox.data.failed_runs.length > 0 && (
        <section className="panel" aria-label="Failed runs">
          <h2>Failed in the last 7 days</h2>
          <RunTable companyId={companyId} runs={inbox.data.failed_runs} />
        </section>
      )}
    </>
  )
}
