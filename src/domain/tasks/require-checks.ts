import type { Queryable } from '../../server/db/db.ts'
import { AppError } from '../../server/errors.ts'
import type { Actor } from '../../server/actor.ts'
import { type CheckResult, checksPassed } from '../../contract/work.ts'

/**
 * With the project's `require_checks`, an agent does not mark a task `done` while the checks of
 * the task's last run did not pass (none recorded counts as not passed): 400 CHECKS_FAILED.
 * People may (they decide what "done" is).
 */
export async function requirePassedChecks(q: Queryable, companyId: string, task: { id: string; project_id: string | null }, actor: Actor): Promise<void> {
  if (actor.type !== 'agent' || !task.project_id) return
  const row = await q.one<{ require_checks: boolean; checks: CheckResult[] | null }>(
    `SELECT p.require_checks,
            (SELECT r.checks FROM runs r WHERE r.task_id = $3 AND r.company_id IS NOT DISTINCT FROM $2 AND r.status IN ('running', 'succeeded', 'failed')
              ORDER BY r.started_at DESC NULLS LAST, r.created_at DESC LIMIT 1) AS checks
       FROM projects p WHERE p.id = $1 AND p.company_id IS NOT DISTINCT FROM $2`,
    [task.project_id, companyId, task.id],
  )
  if (!row?.require_checks || (row.checks?.length && checksPassed(row.checks))) return
  throw new AppError('CHECKS_FAILED', "The project requires passing checks: the checks of the task's last run did not pass, so an agent cannot mark it done",
    { checks: row.checks ?? [] })
}
