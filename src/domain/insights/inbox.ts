import type { Approval } from '../../contract/approvals.ts'
import type { Inbox } from '../../contract/insights.ts'
import type { Run } from '../../contract/runs.ts'
import type { Task } from '../../contract/tasks.ts'
import type { Queryable } from '../../server/db/db.ts'
import { APPROVAL_COLUMNS } from '../approvals/model.ts'
import { namingTasks, runColumns } from '../runs/model.ts'
import { TASK_SELECT } from '../tasks/model.ts'

const FAILED_RUNS = 20
/** Tasks waiting for a person, in board order: enough for a screen, never a company's history. */
const WAITING_TASKS = 200

/**
 * What waits for a person (API-DECISIONS.md "Inbox"): pending approvals (newest first), tasks
 * that are blocked or in review (in the task list's order, at most WAITING_TASKS, each status
 * read along tasks_status), and the runs that failed in the last 7 days (newest failure first,
 * at most 20, read along runs_failed, which holds failed runs only).
 */
export async function inbox(q: Queryable, companyId: string): Promise<Inbox> {
  const [approvals, tasks, failedRuns] = await Promise.all([
    q.many<Approval>(
      `SELECT ${APPROVAL_COLUMNS} FROM approvals ap WHERE ap.company_id = $1 AND ap.status = 'pending'
        ORDER BY ap.created_at DESC, ap.id DESC`,
      [companyId],
    ),
    q.many<Task>(
      `SELECT * FROM (
         (${TASK_SELECT} WHERE t.company_id = $1 AND t.status = 'blocked' ORDER BY t.sort_order, t.number DESC LIMIT ${WAITING_TASKS})
         UNION ALL
         (${TASK_SELECT} WHERE t.company_id = $1 AND t.status = 'in_review' ORDER BY t.sort_order, t.number DESC LIMIT ${WAITING_TASKS})
       ) waiting ORDER BY sort_order, number DESC LIMIT ${WAITING_TASKS}`,
      [companyId],
    ),
    q.many<Run>(
      namingTasks(
        `SELECT ${runColumns()} FROM runs
          WHERE company_id = $1 AND ended_at >= now() - interval '7 days' AND status = 'failed'
          ORDER BY ended_at DESC, id DESC LIMIT ${FAILED_RUNS}`,
        'r.ended_at DESC, r.id DESC',
      ),
      [companyId],
    ),
  ])
  return { approvals, tasks, failed_runs: failedRuns }
}
