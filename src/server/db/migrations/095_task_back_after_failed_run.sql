-- Tasks after a failed run (API-DECISIONS.md): a run that moved its task to in_progress at
-- claim and then fails or is cancelled puts the task back where it was. The run remembers
-- the status its task had: task_status_before, set by the claim only when it moved the task
-- (null otherwise). runs/finish.ts reads it when a run ends failed or cancelled.
ALTER TABLE runs ADD COLUMN task_status_before text;

-- claim_run as in migration 065, but the task is read (and locked) before the run is
-- started, so that the run's own UPDATE can record the task's status; the order of locks is
-- unchanged (the candidate run and agent are locked first, by the candidate query).
CREATE OR REPLACE FUNCTION claim_run(
  company uuid, runner text, dormant text[], only_agents uuid[], only_adapters text[], lease_seconds integer,
  actor_type text, actor_name text, actor_user_id uuid, actor_agent_id uuid, actor_run_id uuid
) RETURNS jsonb LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan
  SET enable_sort = off
  SET enable_bitmapscan = off
  SET enable_seqscan = off
  SET enable_material = off
AS $$
DECLARE
  claimed jsonb;
BEGIN
  -- runs_running holds only running runs, so this never reads history.
  IF EXISTS (SELECT 1 FROM runs
              WHERE status = 'running' AND company_id = company
                AND coalesce(heartbeat_at, started_at) < now() - make_interval(secs => lease_seconds)) THEN
    RETURN '{"stale": true}'::jsonb;
  END IF;

  WITH candidate AS (
    SELECT r.id, r.task_id, a.name AS agent_name FROM runs r JOIN agents a ON a.id = r.agent_id
     WHERE r.company_id = company AND r.status = 'queued'
       AND NOT (a.status = ANY(dormant))
       AND NOT EXISTS (SELECT 1 FROM runs x WHERE x.agent_id = r.agent_id AND x.status = 'running')
       AND (only_agents IS NULL OR r.agent_id = ANY(only_agents))
       AND (only_adapters IS NULL OR a.adapter = ANY(only_adapters))
     ORDER BY r.created_at, r.id
     LIMIT 1
     FOR NO KEY UPDATE OF r, a SKIP LOCKED
  ), old_task AS (
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
  ), stamp AS (
    SELECT greatest(clock_timestamp(), (SELECT max(created_at) FROM audit_events WHERE company_id = company) + interval '1 microsecond') AS at
  ), audit AS (
    INSERT INTO audit_events (company_id, actor_type, actor_name, actor_user_id, actor_agent_id, run_id,
                              verb, entity_type, entity_id, label, changes, created_at)
    SELECT company, claim_run.actor_type, claim_run.actor_name, claim_run.actor_user_id, claim_run.actor_agent_id, actor_run_id,
           'started', 'run', run.id, run.agent_name || ' (' || run.trigger || ')', '{"status": ["queued", "running"]}'::jsonb, stamp.at
      FROM run, stamp
    UNION ALL
    SELECT company, 'system', run.agent_name, NULL, NULL, NULL, 'moved', 'task', task.id, task.key || ' ' || task.title,
           jsonb_build_object('status', jsonb_build_array(task.old_status, 'in_progress'))
             || CASE WHEN task.started_at_changed THEN jsonb_build_object('started_at', jsonb_build_array(NULL, task.started_at))
                     ELSE '{}'::jsonb END,
           stamp.at + interval '1 microsecond'
      FROM run, task, stamp
  )
  SELECT to_jsonb(run) || jsonb_build_object('started_task_id', (SELECT id FROM task)) INTO claimed FROM run;
  RETURN claimed;
END $$;
