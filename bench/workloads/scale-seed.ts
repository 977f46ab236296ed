import type pg from 'pg'

export interface ScaleSize {
  agents: number
  tasks: number
  auditEvents: number
  runs: number
}

/**
 * Fills a company (made through the API, so its owner and membership are real) with history,
 * in a handful of generate_series statements instead of millions of requests. The shape
 * follows real use: tasks in every status spread over 90 days, most runs finished with a cost,
 * a pending approval and a few blocked or in-review tasks for the inbox, a queued run per
 * agent for the dashboard. Timestamps end before `now` and audit stamps are distinct per
 * company, as audit/record.ts keeps them.
 */
async function seedCompany(c: pg.Client, companyId: string, userId: string, size: ScaleSize, now: Date): Promise<void> {
  const days = 90
  await c.query(
    `INSERT INTO agents (company_id, name, role, adapter, status, created_at)
     SELECT $1, 'Seeded agent ' || g, 'engineer', 'agent_cli_1', 'idle', $3::timestamptz - interval '91 days'
       FROM generate_series(1, $2) g`,
    [companyId, size.agents, now],
  )
  await c.query(
    `INSERT INTO projects (company_id, name) SELECT $1, 'Project ' || g FROM generate_series(1, 10) g`,
    [companyId],
  )
  await c.query(
    `INSERT INTO goals (company_id, title) SELECT $1, 'Goal ' || g FROM generate_series(1, 5) g`,
    [companyId],
  )
  // Task n is assigned to agent n mod agents and belongs to project n mod 10; every other task
  // serves one of five goals; one in ten was created by the owner (the dashboard's "for you");
  // its title names one of eight topics.
  await c.query(
    `WITH a AS (SELECT array_agg(id ORDER BY name) ids FROM agents WHERE company_id = $1),
          p AS (SELECT array_agg(id ORDER BY name) ids FROM projects WHERE company_id = $1),
          o AS (SELECT array_agg(id ORDER BY title) ids FROM goals WHERE company_id = $1)
     INSERT INTO tasks (company_id, number, title, description, status, priority, assignee_agent_id, project_id, goal_id,
                        created_by_user_id, started_at, completed_at, created_at, updated_at)
     SELECT $1, g, 'Seeded task ' || g || ': ' || (ARRAY['billing','login','search','export','onboarding','reports','alerts','sync'])[1 + g % 8],
            'Work item number ' || g || ' of the seeded history',
            s.status, (ARRAY['urgent','high','medium','low','none'])[1 + g % 5],
            a.ids[1 + g % array_length(a.ids, 1)], p.ids[1 + g % 10], CASE WHEN g % 2 = 0 THEN o.ids[1 + (g / 2) % 5] END,
            CASE WHEN g % 10 = 0 THEN $3::uuid END,
            CASE WHEN s.status <> 'todo' AND s.status <> 'backlog' THEN t.at + interval '1 hour' END,
            CASE WHEN s.status = 'done' THEN t.at + interval '2 hours' END,
            t.at, t.at + interval '2 hours'
       FROM generate_series(1, $2) g, a, p, o,
            LATERAL (SELECT $5::timestamptz - interval '2 hours' - make_interval(secs => ($2 - g + 1) * ($4 * 86400.0 / $2)) AS at) t,
            LATERAL (SELECT CASE WHEN g > $2 - 50 THEN (ARRAY['blocked','in_review'])[1 + g % 2]
                                 ELSE (ARRAY['done','done','done','done','cancelled','backlog','todo','in_progress'])[1 + g % 8]
                            END AS status) s`,
    [companyId, size.tasks, userId, days, now],
  )
  await c.query('UPDATE companies SET last_task_number = $2 WHERE id = $1', [companyId, size.tasks])
  // Run n works on task (n mod tasks) for that task's agent; ~9% failed, ~1% cancelled.
  await c.query(
    `INSERT INTO runs (company_id, agent_id, task_id, runner_id, status, trigger, tokens_in, tokens_out, cost_cents,
                       summary, error, heartbeat_at, started_at, ended_at, created_at, updated_at)
     SELECT $1, t.assignee_agent_id, t.id, 'seed', s.status, 'assignment', 1000 + g % 500, 200 + g % 100, 1 + g % 7,
            CASE WHEN s.status = 'succeeded' THEN 'Finished the work' END,
            CASE WHEN s.status = 'failed' THEN 'The agent exited with status 1' END,
            r.at + interval '60 seconds', r.at + interval '1 second', r.at + interval '60 seconds', r.at, r.at + interval '60 seconds'
       FROM generate_series(1, $2) g
       JOIN tasks t ON t.company_id = $1 AND t.number = 1 + g % $3,
            LATERAL (SELECT $5::timestamptz - interval '1 minute' - make_interval(secs => ($2 - g + 1) * ($4 * 86400.0 / $2)) AS at) r,
            LATERAL (SELECT CASE WHEN g % 100 = 0 THEN 'cancelled' WHEN g % 11 = 0 THEN 'failed' ELSE 'succeeded' END AS status) s`,
    [companyId, size.runs, size.tasks, days, now],
  )
  // One queued run per agent on its newest open task (the identical-queued-run rule allows one).
  await c.query(
    `INSERT INTO runs (company_id, agent_id, task_id, status, trigger, created_at, updated_at)
     SELECT DISTINCT ON (t.assignee_agent_id) $1, t.assignee_agent_id, t.id, 'queued', 'assignment', $2, $2
       FROM tasks t WHERE t.company_id = $1 AND t.status = 'todo'
      ORDER BY t.assignee_agent_id, t.number DESC`,
    [companyId, now],
  )
  await c.query(
    `INSERT INTO approvals (company_id, type, agent_id, payload, requested_by_user_id)
     SELECT $1, 'hire_agent', id, '{}'::jsonb, $2 FROM agents WHERE company_id = $1 ORDER BY created_at LIMIT 1`,
    [companyId, userId],
  )
  await c.query(
    `INSERT INTO audit_events (company_id, actor_type, actor_name, actor_user_id, verb, entity_type, entity_id, label, changes, created_at)
     SELECT $1, 'user', 'Bench owner', $2, (ARRAY['created','updated','moved'])[1 + g % 3], 'task', gen_random_uuid(),
            'SEED-' || g || ' Seeded task', '{"status": ["todo", "in_progress"]}'::jsonb,
            $5::timestamptz - interval '2 minutes' - make_interval(secs => ($3 - g + 1) * ($4 * 86400.0 / $3))
       FROM generate_series(1, $3) g`,
    [companyId, userId, size.auditEvents, days, now],
  )
}

/**
 * A company where the owner created `tasks` tasks, all still open (the dashboard's "for you"
 * of a person who files a lot of work), all assigned to its one agent (an agent's open_tasks
 * on the agents list): spread over 90 days and the open statuses.
 */
async function seedOpenTasksOf(c: pg.Client, companyId: string, userId: string, tasks: number, now: Date): Promise<void> {
  await c.query(
    `INSERT INTO agents (company_id, name, role, adapter, status, created_at)
     VALUES ($1, 'Busy agent', 'engineer', 'agent_cli_1', 'idle', $2::timestamptz - interval '91 days')`,
    [companyId, now],
  )
  await c.query(
    `INSERT INTO tasks (company_id, number, title, description, status, priority, created_by_user_id, assignee_agent_id, created_at, updated_at)
     SELECT $1, g, 'Filed task ' || g, 'Work item number ' || g || ' filed by the owner',
            (ARRAY['backlog','todo','todo','in_progress','blocked','in_review'])[1 + g % 6],
            (ARRAY['urgent','high','medium','low','none'])[1 + g % 5], $3::uuid, a.id, t.at, t.at + interval '1 hour'
       FROM generate_series(1, $2) g, (SELECT id FROM agents WHERE company_id = $1) a,
            LATERAL (SELECT $4::timestamptz - interval '1 hour' - make_interval(secs => ($2 - g + 1) * (90 * 86400.0 / $2)) AS at) t`,
    [companyId, tasks, userId, now],
  )
  await c.query('UPDATE companies SET last_task_number = $2 WHERE id = $1', [companyId, tasks])
}

const BULK_TABLES = ['tasks', 'runs', 'audit_events']

/**
 * Seeds several companies the way bulk loads are done: the secondary indexes of the big
 * tables are dropped and rebuilt afterwards (one sort each instead of a million insertions;
 * the rebuild of the unique ones also re-checks the seeded rows), and triggers are skipped for
 * this session: foreign keys (the rows are consistent by construction) and the counters'
 * (their totals are then counted afresh, recount_totals(): the dashboard, the costs and the
 * agents and goals lists read them, and would otherwise measure an empty history). Several times faster than
 * inserting into the indexed tables. Ends with VACUUM ANALYZE, the state autovacuum would
 * reach: without visibility maps no index-only scan would be chosen. `bulk: false` inserts
 * the same rows with every index and trigger at work, for the test that both ways agree;
 * `now` is the instant the seeded history ends at.
 */
export async function seedCompanies(
  c: pg.Client,
  companies: { companyId: string; userId: string; size: ScaleSize }[],
  openTasksOf: { companyId: string; userId: string; tasks: number },
  { bulk = true, now = new Date() }: { bulk?: boolean; now?: Date } = {},
): Promise<void> {
  const { rows: indexes } = await c.query<{ name: string; definition: string }>(
    `SELECT indexname AS name, indexdef AS definition FROM pg_indexes i
      WHERE schemaname = 'public' AND tablename = ANY($1)
        AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conname = i.indexname)`,
    [BULK_TABLES],
  )
  if (bulk) {
    await c.query("SET session_replication_role = 'replica'")
    await c.query("SET maintenance_work_mem = '256MB'")
    await c.query('SET synchronous_commit = off')
    for (const index of indexes) await c.query(`DROP INDEX ${index.name}`)
  }
  for (const { companyId, userId, size } of companies) await seedCompany(c, companyId, userId, size, now)
  await seedOpenTasksOf(c, openTasksOf.companyId, openTasksOf.userId, openTasksOf.tasks, now)
  if (bulk) {
    const seeded = [...companies.map((s) => s.companyId), openTasksOf.companyId]
    await c.query('SELECT recount_totals($1)', [seeded])
    for (const index of indexes) await c.query(index.definition)
    await c.query("SET session_replication_role = 'origin'")
  }
  // As autovacuum would leave them: statistics, and visibility maps for index-only scans.
  await c.query('VACUUM ANALYZE')
}
