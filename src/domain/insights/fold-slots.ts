import type { Queryable } from '../../server/db/db.ts'

/** Rows folded per statement: each statement locks only these, for a moment. */
export const FOLD_BATCH = 2000

// A day's rows of task_days and of run_totals are slotted by connection (counter_slot(), up to 16
// a day and key) so that writers at once do not wait on each other. Past days are seldom written,
// so their slots are folded into one row, slot -1, which no connection writes: a month of the
// dashboard's and the costs' reads stays a row per day and key. Rows a writer holds are skipped
// (SKIP LOCKED) and folded next time, so the fold never waits on a writer and cannot close a
// cycle with one; folds running at once (several schedulers) write their rows in key order.

const FOLD_TASK_DAYS = `
  WITH due AS (
    SELECT ctid FROM task_days WHERE slot >= 0 AND day < current_date
     LIMIT $1 FOR UPDATE SKIP LOCKED
  ), gone AS (
    DELETE FROM task_days t USING due WHERE t.ctid = due.ctid
    RETURNING t.company_id, t.day, t.created, t.completed
  )
  INSERT INTO task_days AS d (company_id, day, slot, created, completed)
  SELECT company_id, day, -1, sum(created), sum(completed) FROM gone GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (company_id, day, slot) DO UPDATE SET created = d.created + excluded.created, completed = d.completed + excluded.completed
  RETURNING (SELECT count(*) FROM gone) AS folded`

const FOLD_RUN_TOTALS = `
  WITH due AS (
    SELECT ctid FROM run_totals WHERE slot >= 0 AND day < current_date
     LIMIT $1 FOR UPDATE SKIP LOCKED
  ), gone AS (
    DELETE FROM run_totals t USING due WHERE t.ctid = due.ctid
    RETURNING t.company_id, t.day, t.agent_id, t.project_id, t.runs, t.runs_succeeded, t.runs_failed, t.cost_cents,
              t.tokens_in, t.tokens_out, t.plan_cost_cents
  )
  INSERT INTO run_totals AS r (company_id, day, agent_id, project_id, slot, runs, runs_succeeded, runs_failed, cost_cents,
                               tokens_in, tokens_out, plan_cost_cents)
  SELECT company_id, day, agent_id, project_id, -1, sum(runs), sum(runs_succeeded), sum(runs_failed), sum(cost_cents),
         sum(tokens_in), sum(tokens_out), sum(plan_cost_cents)
    FROM gone GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT ON CONSTRAINT run_totals_key DO UPDATE SET
    runs = r.runs + excluded.runs, runs_succeeded = r.runs_succeeded + excluded.runs_succeeded,
    runs_failed = r.runs_failed + excluded.runs_failed, cost_cents = r.cost_cents + excluded.cost_cents,
    tokens_in = r.tokens_in + excluded.tokens_in, tokens_out = r.tokens_out + excluded.tokens_out,
    plan_cost_cents = r.plan_cost_cents + excluded.plan_cost_cents
  RETURNING (SELECT count(*) FROM gone) AS folded`

/**
 * Folds the slots of past days in batches until none is left, pausing between batches so other
 * writes get the rows. Answers how many slot rows were folded.
 */
export async function foldCounterSlots(q: Queryable, shouldStop: () => boolean = () => false): Promise<number> {
  let total = 0
  for (const sql of [FOLD_TASK_DAYS, FOLD_RUN_TOTALS]) {
    for (;;) {
      const folded = (await q.one<{ folded: number }>(sql, [FOLD_BATCH]))?.folded ?? 0
      total += folded
      if (folded < FOLD_BATCH || shouldStop()) break
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  return total
}
