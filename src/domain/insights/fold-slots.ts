import type { Queryable } from '../../server/db/db.ts'

/** Rows folded per statement: each statement locks only these, for a moment. */
const FOLD_BATCH = 2000

// A day's rows of task_days and of run_totals are slotted by connection (counter_slot(), up to 16
// a day and key) so that writers at once do not wait on each other. Past days are seldom written,
// so their slots are folded into one row, slot -1, which no connection writes: a month of the
// dashboard's and the costs' reads stays a row per day and key. Rows a writer holds are skipped
// (SKIP LOCKED) and folded next time, so the fold never waits on a writer and cannot close a
// cycle with one; folds running at once (several schedulers) write their rows in key order.

/**
 * One batch of a table's fold: up to $1 rows of past days in slots 0-15 deleted, and their sums
 * added to slot -1 of their day and key. `conflict` names the table's unique key.
 */
function foldSql(table: string, keys: string[], counters: string[], conflict: string): string {
  return `
  WITH due AS (
    SELECT ctid FROM ${table} WHERE slot >= 0 AND day < current_date
     LIMIT $1 FOR UPDATE SKIP LOCKED
  ), gone AS (
    DELETE FROM ${table} t USING due WHERE t.ctid = due.ctid
    RETURNING ${[...keys, ...counters].map((c) => `t.${c}`).join(', ')}
  )
  INSERT INTO ${table} AS f (${keys.join(', ')}, slot, ${counters.join(', ')})
  SELECT ${keys.join(', ')}, -1, ${counters.map((c) => `sum(${c})`).join(', ')}
    FROM gone GROUP BY ${keys.map((_, i) => i + 1).join(', ')} ORDER BY ${keys.map((_, i) => i + 1).join(', ')}
  ON CONFLICT ${conflict} DO UPDATE SET ${counters.map((c) => `${c} = f.${c} + excluded.${c}`).join(', ')}
  RETURNING (SELECT count(*) FROM gone) AS folded`
}

const FOLDS = [
  foldSql('task_days', ['company_id', 'day'], ['created', 'completed'], '(company_id, day, slot)'),
  foldSql('run_totals', ['company_id', 'day', 'agent_id', 'project_id'],
    ['runs', 'runs_succeeded', 'runs_failed', 'cost_cents', 'tokens_in', 'tokens_out', 'plan_cost_cents'], 'ON CONSTRAINT run_totals_key'),
]

/**
 * Folds the slots of past days in batches until none is left, pausing between batches so other
 * writes get the rows. Answers how many slot rows were folded.
 */
export async function foldCounterSlots(q: Queryable, shouldStop: () => boolean = () => false): Promise<number> {
  let total = 0
  for (const sql of FOLDS) {
    for (;;) {
      const folded = (await q.one<{ folded: number }>(sql, [FOLD_BATCH]))?.folded ?? 0
      total += folded
      if (folded < FOLD_BATCH || shouldStop()) break
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  return total
}
