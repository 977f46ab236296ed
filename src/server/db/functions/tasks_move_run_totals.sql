-- A task moved to another project takes the totals of its runs along; a deleted task's runs
-- (which lose their task) count for no project (triggers tasks_project_moves_run_totals,
-- tasks_delete_moves_run_totals).
CREATE OR REPLACE FUNCTION tasks_move_run_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    PERFORM run_totals_move_task(NEW.id, OLD.project_id, NEW.project_id);
  -- A company being deleted takes its totals with it; nothing to move.
  ELSIF EXISTS (SELECT 1 FROM companies WHERE id = OLD.company_id) THEN
    PERFORM run_totals_move_task(OLD.id, OLD.project_id, NULL);
  END IF;
  RETURN OLD; -- a BEFORE DELETE trigger returning NULL would cancel the delete
END $$;
