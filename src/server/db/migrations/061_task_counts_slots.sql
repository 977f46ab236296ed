-- Task counts (040) split into slots. With one row per company, status and priority, every
-- task moving between two statuses of a company locked the same two rows until its transaction
-- committed, so a company's claims (each moves a task to in_progress) ran one at a time: 2.5 ms
-- of lock waiting per claim with 8 runners. Each database connection now counts into the slot
-- of its backend pid; transactions in flight at the same moment are on different connections,
-- so they rarely share a row. A slot may go negative (a task counted in one slot and moved by
-- another connection); the sum over the slots is the count.

ALTER TABLE task_counts ADD COLUMN slot smallint NOT NULL DEFAULT 0;
ALTER TABLE task_counts DROP CONSTRAINT task_counts_pkey;
ALTER TABLE task_counts ADD PRIMARY KEY (company_id, status, priority, slot);

CREATE OR REPLACE FUNCTION task_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  my_slot smallint := pg_backend_pid() % 16;
BEGIN
  -- A company being deleted takes its counts with it.
  IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM companies WHERE id = OLD.company_id) THEN RETURN NULL; END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO task_counts AS c (company_id, status, priority, slot, n) VALUES (OLD.company_id, OLD.status, OLD.priority, my_slot, -1)
    ON CONFLICT (company_id, status, priority, slot) DO UPDATE SET n = c.n - 1;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO task_counts AS c (company_id, status, priority, slot, n) VALUES (NEW.company_id, NEW.status, NEW.priority, my_slot, 1)
    ON CONFLICT (company_id, status, priority, slot) DO UPDATE SET n = c.n + 1;
  END IF;
  RETURN NULL;
END
$$;

-- Deferred to the commit, like the totals of migration 060: the counters are the last rows a
-- transaction locks, so waiting for one can never close a cycle with the task, run and agent
-- rows that claims, reports and task updates lock in their own orders.
DROP TRIGGER tasks_counted ON tasks;
DROP TRIGGER tasks_recounted ON tasks;
CREATE CONSTRAINT TRIGGER tasks_counted AFTER INSERT OR DELETE ON tasks DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION task_counts_follow();
CREATE CONSTRAINT TRIGGER tasks_recounted AFTER UPDATE OF status, priority ON tasks DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.priority IS DISTINCT FROM NEW.priority)
  EXECUTE FUNCTION task_counts_follow();
