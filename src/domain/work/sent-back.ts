import type { Tx } from '../../server/db/write.ts'
import { systemActor } from '../../server/actor.ts'
import { isDormant } from '../../contract/agents.ts'
import { type CheckResult, failingCheck } from '../../contract/work.ts'
import { addComment } from '../comments/service.ts'
import type { Run } from '../runs/model.ts'
import { queueRun } from '../runs/queue.ts'
import { findTask } from '../tasks/find.ts'
import { updateTask } from '../tasks/update.ts'

/** Runs sent back in a row after failing checks; one more failure blocks the task for a person. */
export const CHECK_RETRIES = 3

/**
 * A run whose agent finished but whose checks did not pass (API-DECISIONS.md "Work products"):
 * the task does not go to review (the runner left it where it was); the agent gets a new
 * `assignment` run whose first entry quotes the failing check, up to CHECK_RETRIES such runs in
 * a row. After that the task is `blocked` with a `question` comment for a person. Called in the
 * transaction of the run's final report.
 */
export async function sendBackAfterFailedChecks(tx: Tx, run: Run): Promise<void> {
  const failing = failingCheck(run.checks)
  if (run.status !== 'succeeded' || !run.task_id || !failing) return
  const task = await findTask(tx, run.company_id, run.task_id, true)
  if (task.status === 'done' || task.status === 'cancelled' || task.status === 'blocked') return
  const agent = await tx.one<{ name: string; status: string }>('SELECT name, status FROM agents WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2', [run.agent_id, run.company_id])
  if (!agent) return
  const actor = systemActor(agent.name)
  const failures = await failuresInARow(tx, run)
  if (failures > CHECK_RETRIES || isDormant(agent.status)) {
    await updateTask(tx, run.company_id, task.id, actor, { status: 'blocked' })
    await addComment(tx, run.company_id, task.id, actor, {
      kind: 'question',
      body: `The check "${failing.name}" still fails after ${failures} attempts in a row; the work needs a person. Its output ends with:\n\n${fenced(failing)}`,
    })
    return
  }
  await queueRun(tx, {
    companyId: run.company_id,
    agentId: run.agent_id,
    agentName: agent.name,
    taskId: task.id,
    trigger: 'assignment',
    reason: `The check "${failing.name}" ${failing.status === 'timed_out' ? 'timed out' : `failed (exit code ${failing.exit_code ?? 'none'})`} ` +
      `after your last run on ${task.key} (attempt ${failures} of ${CHECK_RETRIES}); fix the work so that it passes. Its output ends with:\n\n${fenced(failing)}`,
    actor,
  })
}

/** How many of the task's last finished runs, this one included, had checks that did not pass. */
async function failuresInARow(tx: Tx, run: Run): Promise<number> {
  const recent = await tx.many<{ checks: CheckResult[] }>(
    `SELECT checks FROM runs WHERE task_id = $1 AND company_id IS NOT DISTINCT FROM $2 AND status = 'succeeded'
      ORDER BY created_at DESC, id DESC LIMIT ${CHECK_RETRIES + 2}`,
    [run.task_id, run.company_id],
  )
  let count = 0
  for (const r of recent) {
    if (!failingCheck(r.checks)) break
    count++
  }
  return Math.max(count, 1)
}

function fenced(check: CheckResult): string {
  const fence = check.output_tail.includes('```') ? '~~~~' : '```'
  return `${fence}\n${check.output_tail.slice(-2000).trimEnd()}\n${fence}`
}
