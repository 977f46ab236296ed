-- Keeps the stored per-day run totals (031) true whoever changes the runs behind them. The
-- service only ever changes runs created today or still unfinished, which stored days never
-- hold; but a run finishing after midnight, a task moved to another project, a deleted task
-- (its runs lose task_id) or rows written directly (imports, back-dated test data) can touch a
-- stored day. Each such change forgets that day, and the next read totals it again. The WHEN
-- clauses keep today's writes - every run report - from even calling the function.

CREATE FUNCTION forget_run_day(company uuid, created timestamptz) RETURNS void
LANGUAGE sql AS $$
  DELETE FROM run_days WHERE company_id = company AND day = created::date
$$;

CREATE FUNCTION runs_forget_day() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM forget_run_day(OLD.company_id, OLD.created_at); END IF;
  IF TG_OP <> 'DELETE' THEN PERFORM forget_run_day(NEW.company_id, NEW.created_at); END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER runs_insert_forget_day AFTER INSERT ON runs
  FOR EACH ROW WHEN (NEW.created_at < current_date) EXECUTE FUNCTION runs_forget_day();
CREATE TRIGGER runs_update_forget_day
  AFTER UPDATE OF created_at, status, cost_cents, tokens_in, tokens_out, agent_id, task_id, company_id ON runs
  FOR EACH ROW WHEN (OLD.created_at < current_date OR NEW.created_at < current_date) EXECUTE FUNCTION runs_forget_day();
CREATE TRIGGER runs_delete_forget_day AFTER DELETE ON runs
  FOR EACH ROW WHEN (OLD.created_at < current_date) EXECUTE FUNCTION runs_forget_day();

-- A task moved to another project moves the cost of its past runs with it.
CREATE FUNCTION tasks_forget_run_days() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM run_days s
   USING (SELECT DISTINCT company_id, created_at::date AS day FROM runs
           WHERE task_id = NEW.id AND created_at < current_date) r
   WHERE s.company_id = r.company_id AND s.day = r.day;
  RETURN NULL;
END $$;

CREATE TRIGGER tasks_project_forget_run_days AFTER UPDATE OF project_id ON tasks
  FOR EACH ROW WHEN (OLD.project_id IS DISTINCT FROM NEW.project_id) EXECUTE FUNCTION tasks_forget_run_days();
