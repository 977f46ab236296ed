-- The one writer of new runs: queues a run of `agent` (for a task and/or a routine), unless the
-- identical queued run - same agent, task and routine - exists already: the partial unique index
-- runs_one_identical_queued allows only one, so concurrent callers cannot make two. Returns the
-- new run, or no row when the identical one was there (src/domain/runs/queue.ts then reads it).
-- `transcript` holds the run's first entries; each is stamped with the database's now() and
-- stored as the run's first rows of run_transcript_entries (migration 220).
-- Called by queue.ts in a write's transaction, and by the one-statement task create for the
-- task's assignment run. Deciding whether the agent may be woken is the caller's.
CREATE OR REPLACE FUNCTION queue_run(company uuid, agent uuid, task uuid, routine uuid, run_trigger text, transcript jsonb)
RETURNS SETOF runs LANGUAGE plpgsql AS $$
DECLARE
  queued runs;
BEGIN
  INSERT INTO runs (company_id, agent_id, task_id, routine_id, trigger, transcript_count)
  VALUES (company, agent, task, routine, run_trigger, jsonb_array_length(queue_run.transcript))
  ON CONFLICT (agent_id,
               coalesce(task_id, '00000000-0000-0000-0000-000000000000'::uuid),
               coalesce(routine_id, '00000000-0000-0000-0000-000000000000'::uuid))
    WHERE status = 'queued'
  DO NOTHING
  RETURNING * INTO queued;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  INSERT INTO run_transcript_entries (run_id, seq, entry)
  SELECT queued.id, x.n, jsonb_set(x.e, '{timestamp}', to_jsonb(now()))
    FROM jsonb_array_elements(queue_run.transcript) WITH ORDINALITY AS x(e, n);
  RETURN NEXT queued;
END $$;
