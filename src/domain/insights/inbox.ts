import type { Queryable } from '../../server/db/db.ts'
import { APPROVAL_COLUMNS } from '../approvals/model.ts'
import { runColumns } from '../runs/model.ts'
import { TASK_SELECT } from '../tasks/model.ts'

const FAILED_RUNS = 20

/**
 * What waits for a person (API-DECISIONS.md "Inbox"): pending approvals (newest first), tasks
 * that are blocked or in review (most recently updated first), and the runs that failed in the
 * last 7 days (newest failure first, at most 20; read backwards along runs_ended).
 */
export async function inbox(q: Queryable, companyId: string) {
  const [approvals, tasks, failedRuns] = await Promise.all([
    q.many(
      `SELECT ${APPROVAL_COLUMNS} FROM approvals ap WHERE ap.company_id = $1 AND ap.status = 'pending'
        ORDER BY ap.created_at DESC, ap.id DESC`,
      [companyId],
    ),
    q.many(
      `${TASK_SELECT} WHERE t.company_id = $1 AND t.status IN ('blocked', 'in_review') ORDER BY t.updated_at DESC, t.id DESC`,
      [companyId],
    ),
    q.many(
      `SELECT ${runColumns()} FROM runs
        WHERE company_id = $1 AND ended_at >= now() - interval '7 days' AND status = 'failed'
        ORDER BY ended_at DESC, id DESC LIMIT ${FAILED_RUNS}`,
      [companyId],
    ),
  ])
  return { approvals, tasks, failed_runs: failedRuns }
}
