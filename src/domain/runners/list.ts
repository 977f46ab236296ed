import type { Runner, RunnerRun } from '../../contract/runners.ts'
import type { Queryable } from '../../server/db/db.ts'

/** Runners silent for longer than this are left out of the list. */
export const RUNNERS_LISTED_HOURS = 24

/**
 * GET /runners: the company's runners heard from in the last 24 hours, most recently heard
 * first, each with the runs it holds now. A runner is `stopped` when it said goodbye on a clean
 * stop, `gone` when silent for more than two lease lengths: by then every run it held has
 * expired or is about to.
 */
export async function listRunners(db: Queryable, companyId: string, leaseSeconds: number): Promise<Runner[]> {
  const runners = await db.many<Omit<Runner, 'running_runs'>>(
    `SELECT runner_id, adapters, versions, first_seen_at, last_seen_at,
            -- Cool-downs whose reset has passed are over, whatever the runner said last.
            (SELECT coalesce(jsonb_agg(c ORDER BY c->>'provider'), '[]'::jsonb) FROM jsonb_array_elements(cooldowns) c
              WHERE (c->>'until')::timestamptz > now()) AS cooldowns,
            CASE WHEN stopped_at IS NOT NULL THEN 'stopped'
                 WHEN last_seen_at < now() - make_interval(secs => $2 * 2) THEN 'gone' ELSE 'online' END AS status
       FROM runners
      WHERE company_id = $1 AND last_seen_at > now() - make_interval(hours => $3)
      ORDER BY last_seen_at DESC, runner_id`,
    [companyId, leaseSeconds, RUNNERS_LISTED_HOURS],
  )
  if (runners.length === 0) return []
  // runs_running holds only running runs: this never reads the run history.
  const running = await db.many<RunnerRun & { runner_id: string }>(
    `SELECT r.runner_id, r.id, r.agent_id, a.name AS agent_name, r.task_id,
            CASE WHEN t.id IS NULL THEN NULL ELSE c.task_prefix || '-' || t.number END AS task_key,
            t.title AS task_title, r.started_at
       FROM runs r
       JOIN agents a ON a.id = r.agent_id
       JOIN companies c ON c.id = r.company_id
       LEFT JOIN tasks t ON t.id = r.task_id
      WHERE r.company_id = $1 AND r.status = 'running'
      ORDER BY r.started_at, r.id`,
    [companyId],
  )
  return runners.map((runner) => ({
    ...runner,
    running_runs: running.filter((run) => run.runner_id === runner.runner_id).map(({ runner_id: _, ...run }) => run),
  }))
}
