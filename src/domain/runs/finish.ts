import type { CompanyEvent } from '../../server/events/bus.ts'
import type { Tx } from '../../server/db/write.ts'
import { enforceBudget } from './budget.ts'
import { type Actor, systemActor } from '../../server/actor.ts'
import { recordAudit } from '../audit/record.ts'
import { agentEndedRun } from './agent-status.ts'
import { tripRepeat } from './breaker.ts'
import { foundRunIsRunning, type Run, type RunStatus } from './model.ts'

// What follows a run ending, shared by report, cancel and lease expiry so that every path
// audits, moves the agent and checks the budget the same way. (A claim starts a run in a
// statement of its own: claim_run(). A finishing report of an agent without a
// budget does this work in one statement, FINISH_UNBUDGETED in report.ts: keep them alike.)

/** `run.updated`, published by every claim, report, cancel and expiry. */
export function runUpdatedEvent(run: Pick<Run, 'id' | 'agent_id' | 'status'>): CompanyEvent {
  return { type: 'run.updated', id: run.id, agent_id: run.agent_id, status: run.status }
}

export function publishRunUpdated(tx: Tx, run: Pick<Run, 'id' | 'company_id' | 'agent_id' | 'status'>): void {
  tx.publish(run.company_id, runUpdatedEvent(run))
}

/**
 * The run finished (succeeded, failed or cancelled; ended_at already stamped by the caller's
 * statement), coming from `previous`. `actor` null means the system acting for the run's agent
 * (lease expiry). `agentLeaving`: the agent is being terminated in the same transaction, so its
 * status is left to the termination (whose audit event records the status it had) and its
 * budget is not checked (a terminated agent is never paused and has no override to decide).
 * `limited`: the run failed on its provider's limit (defer.ts), which is not the agent's
 * failure, so the agent goes back to idle rather than error. Answers the agent's name.
 */
export async function runEnded(
  tx: Tx, run: Run, previous: RunStatus | null, actor: Actor | null, agentLeaving = false, { limited = false } = {},
): Promise<string> {
  const agent = agentLeaving
    ? await tx.one<{ name: string; budget: number; pause_on_repeat: boolean }>('SELECT name, monthly_budget_cents AS budget, pause_on_repeat FROM agents WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2', [run.agent_id, run.company_id])
    : await agentEndedRun(tx, run.company_id, run.agent_id, previous === 'running', run.status === 'failed' && !limited)
  const agentName = agent?.name ?? 'system'
  await recordAudit(tx, {
    companyId: run.company_id,
    actor: actor ?? systemActor(agentName),
    verb: run.status,
    entityType: 'run',
    entityId: run.id,
    label: `${agentName} (${run.trigger})`,
    changes: {
      status: [previous, run.status],
      ...(run.error !== null && run.status === 'failed' ? { error: [null, run.error] } : {}),
    },
  })
  if (previous === 'running' && (run.status === 'failed' || run.status === 'cancelled') && run.task_id) {
    await taskBackAfterRun(tx, run, agentName)
  }
  // A budget of 0 is no limit: nothing to add up.
  if (agent && agent.budget > 0 && !agentLeaving) await enforceBudget(tx, run.company_id, run.agent_id)
  // The runaway breaker's pause_on_repeat (breaker.ts), when this is the third same summary.
  if (agent?.pause_on_repeat && !agentLeaving && run.task_id && run.summary) await tripRepeat(tx, run.company_id, run.agent_id, run.task_id)
  return agentName
}

/**
 * Tasks after a failed run (API-DECISIONS.md): when the claim of this run moved its task to
 * in_progress (runs.task_status_before, migration 095) and the task is still in_progress with
 * no other running run, the task goes back to the status it had, by the system on behalf of
 * the agent, like the claim's move. A task someone moved on meanwhile is left alone.
 */
async function taskBackAfterRun(tx: Tx, run: Run, agentName: string): Promise<void> {
  // "No other running run of the task" is the task's range of runs_task, the task given as a
  // value ($3) so that the index is read for it alone. On statistics taken while the table's runs
  // had one task between them, PostgreSQL read the whole table instead (a sequential scan of 632
  // rows, in a test; as a join with the task, a generic plan did too, and with sequential scans
  // off it read the whole index): not for this statement. (Should it fail, the transaction ends
  // with it, and the setting too.)
  await tx.query('SET LOCAL enable_seqscan = off')
  const task = await tx.one<{ id: string; title: string; key: string; status: string }>(
    `WITH back AS (
       SELECT t.id, r.task_status_before AS status
         FROM runs r JOIN tasks t ON t.id = r.task_id AND t.company_id IS NOT DISTINCT FROM $2
        WHERE r.id = $1 AND r.company_id IS NOT DISTINCT FROM $2 AND r.task_status_before IS NOT NULL AND t.status = 'in_progress'
          AND NOT EXISTS (SELECT 1 FROM runs x WHERE x.task_id = $3 AND ${foundRunIsRunning('x')} AND x.id <> $1)
        FOR NO KEY UPDATE OF t
     )
     UPDATE tasks t SET status = back.status, updated_at = now()
       FROM back, companies c
      WHERE t.id = back.id AND c.id = t.company_id AND t.status = 'in_progress'
      RETURNING t.id, t.title, c.task_prefix || '-' || t.number AS key, t.status`,
    [run.id, run.company_id, run.task_id],
  )
  await tx.query('SET LOCAL enable_seqscan TO DEFAULT')
  if (!task) return
  await recordAudit(tx, {
    companyId: run.company_id,
    actor: systemActor(agentName),
    verb: 'moved',
    entityType: 'task',
    entityId: task.id,
    label: `${task.key} ${task.title}`,
    changes: { status: ['in_progress', task.status] },
  })
  tx.publish(run.company_id, { type: 'task.updated', id: task.id })
}
