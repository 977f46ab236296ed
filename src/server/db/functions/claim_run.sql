-- The claim (src/domain/runs/claim.ts) as one function, called as one statement outside
-- BEGIN/COMMIT: a claim is the runners' hot path, and it was five round trips (BEGIN, the
-- stale sweep, planner settings, the claim, COMMIT).
--
-- The SET clauses hold for the function's own statements only. PostgreSQL plans a statement
-- again on every execution while its generic plan looks dearer than a custom one, and for the
-- claim it always did: not knowing which company, the generic plan expects a few queued runs
-- and would read and sort them all, where the right plan walks runs_claim in order and stops at
-- the first claimable run, fetching each candidate's agent by its key. Planning each time cost
-- more than running it (1.1 ms). With sorts, bitmap scans, sequential scans and materialised
-- rescans priced out, the generic plan is that walk, made once per connection and reused
-- (left to itself it also read every agent of the company once per claim). Incremental sorts
-- too: on statistics taken while the company's runs were mostly queued (a new company, a
-- backlog queued at once), the plan walked runs_list or runs_status in time order from the
-- company's oldest run and sorted each instant's runs by id, reading every run the company had
-- finished since on every claim (2,000 rows a claim after 2,000 finished runs; migration 126).
--
-- Returns null when nothing is claimable; {"stale": true} when running runs of the company have
-- outlived their lease, which the caller fails (runs/expire.ts: audit, agent status, budget)
-- before asking again; {"tripped": [agent ids]} for the runaway breaker (below), which the
-- caller pauses (runs/breaker.ts) before asking again; otherwise the claimed run (every runs column and its
-- transcript), its agent's name and the task it moved to in_progress, if any.
--
-- One attempt: take the oldest eligible queued run (skipping runs and agents locked by other
-- writes), start it, move its agent to running (agent-status.ts) and its backlog or todo task to
-- in_progress, stamping started_at the first time (API-DECISIONS.md), and write the audit
-- events (record_audit_events): run `started` by the claimer, task `moved` by the system on
-- behalf of the agent, 1 µs later. Should two claimers pick two runs of one agent, the loser
-- fails on runs_one_running_per_agent (23505) and the caller tries again.
CREATE OR REPLACE FUNCTION claim_run(
  company uuid, runner text, dormant text[], only_agents uuid[], only_adapters text[], lease_seconds integer,
  actor_type text, actor_name text, actor_user_id uuid, actor_agent_id uuid, actor_run_id uuid
) RETURNS jsonb LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan
  SET enable_sort = off
  SET enable_bitmapscan = off
  SET enable_seqscan = off
  SET enable_material = off
  SET enable_incremental_sort = off
AS $$
DECLARE
  claimed jsonb;
  tripped jsonb;
BEGIN
  -- runs_running holds only running runs, so this never reads history.
  IF EXISTS (SELECT 1 FROM runs
              WHERE status = 'running' AND company_id = company
                AND coalesce(heartbeat_at, started_at) < now() - make_interval(secs => lease_seconds)) THEN
    RETURN '{"stale": true}'::jsonb;
  END IF;

  -- Runaway breaker (API-DECISIONS.md "Spend control"): agents with max_runs_per_hour that
  -- already started that many runs in the last 60 minutes (since the breaker's last approval)
  -- and have a queued run are reported instead of claiming. agents_run_limit holds only agents
  -- with a limit: a company without any pays one empty index probe.
  SELECT jsonb_agg(a.id) INTO tripped FROM agents a
   WHERE a.company_id = company AND a.max_runs_per_hour > 0 AND NOT (a.status = ANY(dormant))
     AND (only_agents IS NULL OR a.id = ANY(only_agents))
     AND (only_adapters IS NULL OR a.adapter = ANY(only_adapters))
     AND (SELECT count(*) FROM runs s
           WHERE s.agent_id = a.id
             AND s.started_at >= greatest(now() - interval '60 minutes', coalesce(a.breaker_reset_at, '-infinity'))) >= a.max_runs_per_hour
     AND EXISTS (SELECT 1 FROM runs q WHERE q.agent_id = a.id AND q.status = 'queued'
                   AND (q.not_before IS NULL OR q.not_before <= now()));
  IF tripped IS NOT NULL THEN
    RETURN jsonb_build_object('tripped', tripped);
  END IF;

  WITH candidate AS (
    SELECT r.id, r.task_id, a.name AS agent_name FROM runs r JOIN agents a ON a.id = r.agent_id
     WHERE r.company_id = company AND r.status = 'queued'
       -- A run deferred to a provider limit's reset waits for it (migration 210).
       AND (r.not_before IS NULL OR r.not_before <= now())
       AND NOT (a.status = ANY(dormant))
       -- One probe of runs_one_running_per_agent per candidate, written as the index holds it
       -- (runs/model.ts: runningAgentIs, migration 129). Asked as status = 'running', on
       -- statistics taken while nothing ran, it read the company's running runs per candidate.
       AND NOT EXISTS (SELECT 1 FROM runs x WHERE (CASE WHEN x.status = 'running' THEN x.agent_id END) = r.agent_id)
       AND (only_agents IS NULL OR r.agent_id = ANY(only_agents))
       AND (only_adapters IS NULL OR a.adapter = ANY(only_adapters))
     ORDER BY r.created_at, r.id
     LIMIT 1
     FOR NO KEY UPDATE OF r, a SKIP LOCKED
  ), old_task AS (
    -- Read (and locked) before the run is started, so that the run can record the status its
    -- task had (task_status_before: a failed run puts it back, runs/finish.ts). The order of
    -- locks is unchanged: the candidate run and agent are locked first, by the candidate query.
    SELECT id, status, started_at FROM tasks
     WHERE id = (SELECT task_id FROM candidate) AND company_id = company AND status IN ('backlog', 'todo')
     FOR NO KEY UPDATE
  ), run AS (
    UPDATE runs SET status = 'running', runner_id = runner, started_at = now(), heartbeat_at = now(), updated_at = now(),
                    task_status_before = (SELECT status FROM old_task)
      FROM candidate
     WHERE runs.id = candidate.id AND runs.status = 'queued'
    RETURNING runs.*, candidate.agent_name
  ), agent AS (
    UPDATE agents SET status = 'running', last_activity = now(), updated_at = now()
     WHERE id = (SELECT agent_id FROM run) AND company_id = company AND status IN ('idle', 'error')
  ), task AS (
    UPDATE tasks t SET status = 'in_progress', started_at = coalesce(t.started_at, now()), updated_at = now()
      FROM old_task o, companies c
     WHERE t.id = o.id AND c.id = t.company_id AND EXISTS (SELECT 1 FROM run)
    RETURNING t.id, t.title, c.task_prefix || '-' || t.number AS key, o.status AS old_status,
              o.started_at IS NULL AS started_at_changed, t.started_at
  ), audit AS MATERIALIZED (
    SELECT record_audit_events(company,
             jsonb_build_array(jsonb_build_object(
               -- A runner's claim is the service starting the agent's run: `system`, named after the agent.
               'actor_type', claim_run.actor_type,
               'actor_name', CASE WHEN claim_run.actor_type = 'system' THEN run.agent_name ELSE claim_run.actor_name END,
               'actor_user_id', claim_run.actor_user_id, 'actor_agent_id', claim_run.actor_agent_id, 'run_id', actor_run_id,
               'verb', 'started', 'entity_type', 'run', 'entity_id', run.id, 'label', run.agent_name || ' (' || run.trigger || ')',
               'changes', '{"status": ["queued", "running"]}'::jsonb))
             || coalesce((SELECT jsonb_build_array(jsonb_build_object(
                  'actor_type', 'system', 'actor_name', run.agent_name,
                  'verb', 'moved', 'entity_type', 'task', 'entity_id', task.id, 'label', task.key || ' ' || task.title,
                  'changes', jsonb_build_object('status', jsonb_build_array(task.old_status, 'in_progress'))
                               || CASE WHEN task.started_at_changed
                                       THEN jsonb_build_object('started_at', jsonb_build_array(NULL, task.started_at))
                                       ELSE '{}'::jsonb END))
                  FROM task), '[]'::jsonb)) AS written
      FROM run
  )
  -- Joining audit makes the statement write the events.
  -- The run's transcript (run_transcript_entries, migration 220) goes with it: a queued run holds
  -- only the few entries written with it (why it was queued), which the run context shows.
  SELECT to_jsonb(run) || jsonb_build_object(
           'started_task_id', (SELECT id FROM task),
           'transcript', (SELECT coalesce(jsonb_agg(e.entry ORDER BY e.seq), '[]'::jsonb) FROM run_transcript_entries e WHERE e.run_id = run.id))
    INTO claimed FROM run, audit;
  RETURN claimed;
END $$;
