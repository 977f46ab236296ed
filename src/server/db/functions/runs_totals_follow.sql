-- Keeps run_totals following the runs (triggers runs_totalled, runs_retotalled). A new run adds
-- its share; a changed run adds the difference to its row, or, when its day or agent changed
-- (rows written by hand), takes its old share away from the old row first.
CREATE OR REPLACE FUNCTION runs_totals_follow() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  same_row boolean := TG_OP = 'UPDATE' AND OLD.agent_id = NEW.agent_id
                      AND (OLD.created_at AT TIME ZONE 'UTC')::date = (NEW.created_at AT TIME ZONE 'UTC')::date;
  was_succeeded integer := 0;
  was_failed integer := 0;
  was_cost bigint := 0;
  was_in bigint := 0;
  was_out bigint := 0;
  was_plan bigint := 0;
BEGIN
  -- A transaction writing a company's runs in bulk (an import's assignment runs) counts them
  -- afresh itself (recount_totals), as for tasks: it names the company in shopfloor.uncounted_company.
  IF current_setting('shopfloor.uncounted_company', true) = NEW.company_id::text THEN RETURN NULL; END IF;
  IF same_row THEN
    was_succeeded := (OLD.status = 'succeeded')::int;
    was_failed := (OLD.status = 'failed')::int;
    was_cost := OLD.cost_cents;
    was_in := OLD.tokens_in;
    was_out := OLD.tokens_out;
    was_plan := CASE WHEN OLD.billing = 'plan' THEN OLD.cost_cents ELSE 0 END;
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM run_totals_add(OLD.company_id, (OLD.created_at AT TIME ZONE 'UTC')::date, OLD.agent_id,
                           (SELECT project_id FROM tasks WHERE id = OLD.task_id), -1, -(OLD.status = 'succeeded')::int,
                           -(OLD.status = 'failed')::int, -OLD.cost_cents, -OLD.tokens_in, -OLD.tokens_out,
                           -CASE WHEN OLD.billing = 'plan' THEN OLD.cost_cents ELSE 0 END);
  END IF;
  PERFORM run_totals_add(NEW.company_id, (NEW.created_at AT TIME ZONE 'UTC')::date, NEW.agent_id,
                         (SELECT project_id FROM tasks WHERE id = NEW.task_id), CASE WHEN same_row THEN 0 ELSE 1 END,
                         (NEW.status = 'succeeded')::int - was_succeeded, (NEW.status = 'failed')::int - was_failed,
                         NEW.cost_cents - was_cost, NEW.tokens_in - was_in, NEW.tokens_out - was_out,
                         CASE WHEN NEW.billing = 'plan' THEN NEW.cost_cents ELSE 0 END - was_plan);
  RETURN NULL;
END $$;
