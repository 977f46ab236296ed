import type { Queryable } from '../../server/db/db.ts'
import { notFound } from '../../server/errors.ts'
import { isUuid } from '../../contract/common.ts'
import { TASK_SELECT, type Task } from './model.ts'

const KEY = /^([A-Za-z][A-Za-z0-9]*)-([1-9]\d{0,9})$/ // no leading zeros: OPS-01 is not OPS-1
const MAX_NUMBER = 2_147_483_647 // the column is an integer; anything larger names no task

/**
 * The task named by `ref` (its UUID, or its key with the prefix matched case-insensitively) in
 * the company, else `404 Task not found`. `lock` takes the row lock for a write.
 */
export async function findTask(q: Queryable, companyId: string, ref: string, lock = false): Promise<Task> {
  const forUpdate = lock ? 'FOR NO KEY UPDATE OF t' : ''
  let task: Task | null = null
  if (isUuid(ref)) {
    task = await q.one<Task>(`${TASK_SELECT} WHERE t.id = $1 AND t.company_id IS NOT DISTINCT FROM $2 ${forUpdate}`, [ref, companyId])
  } else {
    const match = KEY.exec(ref)
    const number = match ? Number(match[2]) : 0
    if (match && number <= MAX_NUMBER) {
      task = await q.one<Task>(
        `${TASK_SELECT} WHERE t.company_id = (SELECT $1::uuid) AND t.number = $2 AND c.task_prefix = upper($3) ${forUpdate}`,
        [companyId, number, match[1]],
      )
    }
  }
  if (!task) throw notFound('Task')
  return task
}
