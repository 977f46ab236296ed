-- Totals kept by triggers in the same transaction as every write, so the dashboard and costs
-- read a few rows per day (and agent) instead of adding up the runs and tasks behind them.
-- They replace the per-day run totals stored lazily by readers (031, 032), which still added
-- up today's runs live: a company with 10,000 runs a day paid for every one of them on each
-- dashboard request.

DROP TRIGGER runs_insert_forget_day ON runs;
DROP TRIGGER runs_update_forget_day ON runs;
DROP TRIGGER runs_delete_forget_day ON runs;
DROP TRIGGER tasks_project_forget_run_days ON tasks;
DROP FUNCTION runs_forget_day();
DROP FUNCTION tasks_forget_run_days();
DROP FUNCTION forget_run_day(uuid, timestamptz);
DROP TABLE run_day_totals;
DROP TABLE run_days;
-- Its only readers were the live sums this migration removes.
DROP INDEX IF EXISTS runs_created_totals;

-- Runs per UTC day of creation, agent and project (the project the run's task is in now).
CREATE TABLE run_totals (
  company_id      uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  day             date NOT NULL,
  agent_id        uuid NOT NULL,
  project_id      uuid,
  runs            integer NOT NULL DEFAULT 0,
  runs_succeeded  integer NOT NULL DEFAULT 0,
  runs_failed     integer NOT NULL DEFAULT 0,
  cost_cents      bigint NOT NULL DEFAULT 0,
  tokens_in       bigint NOT NULL DEFAULT 0,
  tokens_out      bigint NOT NULL DEFAULT 0,
  CONSTRAINT run_totals_key UNIQUE NULLS NOT DISTINCT (company_id, day, agent_id, project_id)
);

INSERT INTO run_totals (company_id, day, agent_id, project_id, runs, runs_succeeded, runs_failed, cost_cents, tokens_in, tokens_out)
SELECT r.company_id, (r.created_at AT TIME ZONE 'UTC')::date, r.agent_id, t.project_id, count(*),
       count(*) FILTER (WHERE r.status = 'succeeded'), count(*) FILTER (WHERE r.status = 'failed'),
       sum(r.cost_cents), sum(r.tokens_in), sum(r.tokens_out)
  FROM runs r LEFT JOIN tasks t ON t.id = r.task_id
 GROUP BY 1, 2, 3, 4;

-- Adds to one row of run_totals. PL/pgSQL rather than SQL: a trigger calling a SQL function
-- plans its statement again on every call (0.3 ms, more than the insert itself), while PL/pgSQL
-- keeps the plan for the connection.
CREATE FUNCTION run_totals_add(company uuid, on_day date, agent uuid, project uuid, n_runs integer, n_succeeded integer,
                               n_failed integer, cost bigint, t_in bigint, t_out bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO run_totals AS t (company_id, day, agent_id, project_id, runs, runs_succeeded, runs_failed, cost_cents, tokens_in, tokens_out)
  VALUES (company, on_day, agent, project, n_runs, n_succeeded, n_failed, cost, t_in, t_out)
  ON CONFLICT ON CONSTRAINT run_totals_key DO UPDATE SET
    runs = t.runs + excluded.runs,
    runs_succeeded = t.runs_succeeded + excluded.runs_succeeded,
    runs_failed = t.runs_failed + excluded.runs_failed,
    cost_cents = t.cost_cents + excluded.cost_cents,
    tokens_in = t.tokens_in + excluded.tokens_in,
    tokens_out = t.tokens_out + excluded.tokens_out;
END $$;

-- A new run adds its share; a changed run adds the difference to its row, or, when its day or
-- agent changed (rows written by hand), takes its old share away from the old row first.
CREATE FUNCTION runs_totals_follow() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  same_row boolean := TG_OP = 'UPDATE' AND OLD.agent_id = NEW.agent_id
                      AND (OLD.created_at AT TIME ZONE 'UTC')::date = (NEW.created_at AT TIME ZONE 'UTC')::date;
  was_succeeded integer := 0;
  was_failed integer := 0;
  was_cost bigint := 0;
  was_in bigint := 0;
  was_out bigint := 0;
BEGIN
  IF same_row THEN
    was_succeeded := (OLD.status = 'succeeded')::int;
    was_failed := (OLD.status = 'failed')::int;
    was_cost := OLD.cost_cents;
    was_in := OLD.tokens_in;
    was_out := OLD.tokens_out;
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM run_totals_add(OLD.company_id, (OLD.created_at AT TIME ZONE 'UTC')::date, OLD.agent_id,
                           (SELECT project_id FROM tasks WHERE id = OLD.task_id), -1, -(OLD.status = 'succeeded')::int,
                           -(OLD.status = 'failed')::int, -OLD.cost_cents, -OLD.tokens_in, -OLD.tokens_out);
  END IF;
  PERFORM run_totals_add(NEW.company_id, (NEW.created_at AT TIME ZONE 'UTC')::date, NEW.agent_id,
                         (SELECT project_id FROM tasks WHERE id = NEW.task_id), CASE WHEN same_row THEN 0 ELSE 1 END,
                         (NEW.status = 'succeeded')::int - was_succeeded, (NEW.status = 'failed')::int - was_failed,
                         NEW.cost_cents - was_cost, NEW.tokens_in - was_in, NEW.tokens_out - was_out);
  RETURN NULL;
END $$;

-- Runs are never deleted (SPEC.md); a company's go with it, and so do its totals.
-- The triggers are deferred to the commit, so a transaction locks its totals rows after every
-- other row it touches: a report holding a run and waiting for its agent, and a wake holding
-- the agent and waiting for the same totals row, would otherwise deadlock. Rows are also held
-- for the shortest time.
CREATE CONSTRAINT TRIGGER runs_totalled AFTER INSERT ON runs DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION runs_totals_follow();
-- A claim or a heartbeat changes nothing that is totalled, so it does not even call the function.
CREATE CONSTRAINT TRIGGER runs_retotalled AFTER UPDATE OF status, cost_cents, tokens_in, tokens_out, agent_id, created_at ON runs
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN ((OLD.status = 'succeeded') <> (NEW.status = 'succeeded')
                  OR (OLD.status = 'failed') <> (NEW.status = 'failed')
                  OR OLD.cost_cents <> NEW.cost_cents OR OLD.tokens_in <> NEW.tokens_in OR OLD.tokens_out <> NEW.tokens_out
                  OR OLD.agent_id <> NEW.agent_id OR OLD.created_at <> NEW.created_at)
  EXECUTE FUNCTION runs_totals_follow();

-- A task moved to another project takes the totals of its runs along; a deleted task's runs
-- (which lose their task) count for no project. Rows are touched in key order, so two such
-- moves cannot deadlock on them. These run at once, not at commit: the runs must still name
-- the task, and no request moves a task and changes its runs in one transaction.
CREATE FUNCTION run_totals_move_task(task uuid, from_project uuid, to_project uuid) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  g record;
  -- Each pair of rows in project order (no project last), so every move locks in one order.
  to_first boolean := from_project IS NULL OR (to_project IS NOT NULL AND to_project < from_project);
BEGIN
  FOR g IN
    SELECT r.company_id, (r.created_at AT TIME ZONE 'UTC')::date AS day, r.agent_id, count(*)::int AS runs,
           (count(*) FILTER (WHERE r.status = 'succeeded'))::int AS succeeded,
           (count(*) FILTER (WHERE r.status = 'failed'))::int AS failed,
           sum(r.cost_cents)::bigint AS cost, sum(r.tokens_in)::bigint AS t_in, sum(r.tokens_out)::bigint AS t_out
      FROM runs r WHERE r.task_id = task
     GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  LOOP
    IF to_first THEN
      PERFORM run_totals_add(g.company_id, g.day, g.agent_id, to_project, g.runs, g.succeeded, g.failed, g.cost, g.t_in, g.t_out);
    END IF;
    PERFORM run_totals_add(g.company_id, g.day, g.agent_id, from_project, -g.runs, -g.succeeded, -g.failed, -g.cost, -g.t_in, -g.t_out);
    IF NOT to_first THEN
      PERFORM run_totals_add(g.company_id, g.day, g.agent_id, to_project, g.runs, g.succeeded, g.failed, g.cost, g.t_in, g.t_out);
    END IF;
  END LOOP;
END $$;

CREATE FUNCTION tasks_move_run_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    PERFORM run_totals_move_task(NEW.id, OLD.project_id, NEW.project_id);
  -- A company being deleted takes its totals with it; nothing to move.
  ELSIF EXISTS (SELECT 1 FROM companies WHERE id = OLD.company_id) THEN
    PERFORM run_totals_move_task(OLD.id, OLD.project_id, NULL);
  END IF;
  RETURN OLD; -- a BEFORE DELETE trigger returning NULL would cancel the delete
END $$;

CREATE TRIGGER tasks_project_moves_run_totals AFTER UPDATE OF project_id ON tasks
  FOR EACH ROW WHEN (OLD.project_id IS DISTINCT FROM NEW.project_id) EXECUTE FUNCTION tasks_move_run_totals();
-- Before the delete: afterwards the runs no longer name the task.
CREATE TRIGGER tasks_delete_moves_run_totals BEFORE DELETE ON tasks
  FOR EACH ROW WHEN (OLD.project_id IS NOT NULL) EXECUTE FUNCTION tasks_move_run_totals();

-- Tasks created and completed per UTC day, for the dashboard's series.
CREATE TABLE task_days (
  company_id  uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  day         date NOT NULL,
  created     integer NOT NULL DEFAULT 0,
  completed   integer NOT NULL DEFAULT 0,
  PRIMARY KEY (company_id, day)
);

INSERT INTO task_days (company_id, day, created, completed)
SELECT company_id, day, sum(created), sum(completed) FROM (
  SELECT company_id, (created_at AT TIME ZONE 'UTC')::date AS day, 1 AS created, 0 AS completed FROM tasks
  UNION ALL
  SELECT company_id, (completed_at AT TIME ZONE 'UTC')::date, 0, 1 FROM tasks WHERE completed_at IS NOT NULL
) x GROUP BY 1, 2;

CREATE FUNCTION task_days_add(company uuid, at timestamptz, n_created integer, n_completed integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO task_days AS d (company_id, day, created, completed)
  VALUES (company, (at AT TIME ZONE 'UTC')::date, n_created, n_completed)
  ON CONFLICT (company_id, day) DO UPDATE SET created = d.created + excluded.created, completed = d.completed + excluded.completed;
END $$;

CREATE FUNCTION task_days_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    -- Only existing rows are decremented: a company being deleted may have lost them already.
    UPDATE task_days SET created = created - 1 WHERE company_id = OLD.company_id AND day = (OLD.created_at AT TIME ZONE 'UTC')::date;
    UPDATE task_days SET completed = completed - 1 WHERE company_id = OLD.company_id AND day = (OLD.completed_at AT TIME ZONE 'UTC')::date;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM task_days_add(NEW.company_id, NEW.created_at, 1, 0);
    IF NEW.completed_at IS NOT NULL THEN PERFORM task_days_add(NEW.company_id, NEW.completed_at, 0, 1); END IF;
  END IF;
  RETURN NULL;
END $$;

-- Deferred to the commit, as the run totals are.
CREATE CONSTRAINT TRIGGER tasks_days_counted AFTER INSERT OR DELETE ON tasks DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION task_days_follow();
CREATE CONSTRAINT TRIGGER tasks_days_recounted AFTER UPDATE OF created_at, completed_at ON tasks DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.completed_at IS DISTINCT FROM NEW.completed_at)
  EXECUTE FUNCTION task_days_follow();

-- An agent's month-to-date spend (agent records, budget checks) now adds up its rows here
-- instead of its runs, so the runs index that served it only slowed every run write.
CREATE INDEX run_totals_agent ON run_totals (agent_id, day);
DROP INDEX IF EXISTS runs_agent_spend;
