import type { Db } from '../../server/db/db.ts'

// Run totals per UTC day, agent and project for the dashboard and costs. Days that are over
// and whose runs have all finished are final, so they are totalled once into run_day_totals
// (migration 031) by the first read that needs them; the other days of a range (today, and a
// past day that still has a queued or running run) are added up live from the runs of those
// days only. Either way a read costs a few rows per day, not one row per run.
//
// A run counts on the day it was created (as month-to-date spend does) and for the project its
// task belonged to when the day was totalled.

/** One day's totals of one agent (and project). */
const TOTAL_COLUMNS = `count(*)::int AS runs,
  count(*) FILTER (WHERE r.status = 'succeeded')::int AS runs_succeeded,
  count(*) FILTER (WHERE r.status = 'failed')::int AS runs_failed,
  sum(r.cost_cents) AS cost_cents, sum(r.tokens_in) AS tokens_in, sum(r.tokens_out) AS tokens_out`

/**
 * Live totals of the runs of company $1 created on the days in the date array `days`. The
 * project is looked up per run by primary key: a day holds a few thousand runs at most, while a
 * join would let the planner read every task of the company.
 */
function liveTotals(withProject: boolean, days: string): string {
  const project = withProject ? '(SELECT t.project_id FROM tasks t WHERE t.id = r.task_id AND t.company_id = $1)' : 'NULL::uuid'
  return `
  SELECT d.day, r.agent_id, ${project} AS project_id, ${TOTAL_COLUMNS}
    FROM unnest(${days}::date[]) AS d(day)
    JOIN runs r ON r.company_id = $1 AND r.created_at >= d.day AND r.created_at < d.day + 1
   GROUP BY d.day, r.agent_id, 3`
}

/**
 * SQL for a `totals` relation: (day, agent_id, project_id, runs, runs_succeeded, runs_failed,
 * cost_cents, tokens_in, tokens_out) for company $1 and the days from $2 up to $3 (exclusive),
 * with $4 the days to add up live, as returned by prepareRunTotals. `withProject` false leaves
 * project_id null for live days (the dashboard does not need it, and skips the task lookups).
 */
export function runTotalsSql(withProject: boolean): string {
  return `
  SELECT day, agent_id, project_id, runs, runs_succeeded, runs_failed, cost_cents, tokens_in, tokens_out
    FROM run_day_totals WHERE company_id = $1 AND day >= $2::date AND day < $3::date
  UNION ALL
  ${liveTotals(withProject, '$4')}`
}

/**
 * Stores the totals of every day in [from, to) that is over, not stored yet and has no queued
 * or running run; returns the days of the range that must be added up live. Two readers that
 * store the same day meet on run_days' primary key: the second skips it.
 */
export async function prepareRunTotals(db: Db, companyId: string, from: string, to: string): Promise<string[]> {
  const days = await db.many<{ day: string; storable: boolean }>(
    `WITH missing AS (
       SELECT g::date AS day FROM generate_series($2::date, $3::date - 1, interval '1 day') g
        WHERE NOT EXISTS (SELECT 1 FROM run_days s WHERE s.company_id = $1 AND s.day = g::date)),
     busy AS (
       SELECT DISTINCT created_at::date AS day FROM runs
        WHERE company_id = $1 AND status IN ('queued', 'running') AND created_at >= $2::date AND created_at < $3::date)
     SELECT to_char(m.day, 'YYYY-MM-DD') AS day,
            m.day < current_date AND NOT EXISTS (SELECT 1 FROM busy b WHERE b.day = m.day) AS storable
       FROM missing m ORDER BY m.day`,
    [companyId, from, to],
  )
  const storable = days.filter((d) => d.storable).map((d) => d.day)
  if (storable.length > 0) {
    await db.transaction(async (tx) => {
      const claimed = await tx.many<{ day: string }>(
        `INSERT INTO run_days (company_id, day) SELECT $1, d FROM unnest($2::date[]) d
         ON CONFLICT DO NOTHING RETURNING to_char(day, 'YYYY-MM-DD') AS day`,
        [companyId, storable],
      )
      if (claimed.length === 0) return
      await tx.query(
        `INSERT INTO run_day_totals (company_id, day, agent_id, project_id, runs, runs_succeeded, runs_failed, cost_cents, tokens_in, tokens_out)
         SELECT $1, day, agent_id, project_id, runs, runs_succeeded, runs_failed, cost_cents, tokens_in, tokens_out
           FROM (${liveTotals(true, '$2')}) totals`,
        [companyId, claimed.map((d) => d.day)],
      )
    })
  }
  return days.filter((d) => !d.storable).map((d) => d.day)
}
