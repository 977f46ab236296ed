-- Keeps a task's counters - by status and priority (task_counts), by creator and status
-- (task_creator_counts: the dashboard's "for you"), open tasks by assignee
-- (task_assignee_counts: an agent's open_tasks), by day of creation and completion
-- (task_days) and linked and done tasks by goal (goal_task_counts: a goal's tasks_total and
-- tasks_done) - following every task write (triggers tasks_counted, tasks_recounted).
-- One function for both: every task insert used to fire two deferred PL/pgSQL triggers at
-- commit, the day's one calling a third function for its upsert; with pgbench inserting tasks
-- over 10 companies from 8 connections, one call per row took the inserts from 5,100-5,560 to
-- 5,270-6,090 per second (7,400 with no counters at all).
CREATE OR REPLACE FUNCTION tasks_counters_follow() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  -- The connection's slot of the counters.
  my_slot smallint := counter_slot();
  counts boolean := true;
  creators boolean := true;
  assignees boolean := true;
  days boolean := true;
  goals boolean := true;
BEGIN
  -- A company being deleted takes its counters with it.
  IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM companies WHERE id = OLD.company_id) THEN RETURN NULL; END IF;
  -- A transaction writing a company's tasks in bulk counts them afresh itself (recount_totals):
  -- it names the company in the transaction's setting shopfloor.uncounted_company.
  IF TG_OP <> 'DELETE' AND current_setting('shopfloor.uncounted_company', true) = NEW.company_id::text THEN RETURN NULL; END IF;
  IF TG_OP = 'UPDATE' THEN
    counts := OLD.status IS DISTINCT FROM NEW.status OR OLD.priority IS DISTINCT FROM NEW.priority;
    creators := OLD.status IS DISTINCT FROM NEW.status OR OLD.created_by_user_id IS DISTINCT FROM NEW.created_by_user_id;
    -- A move between open statuses (a claim's todo -> in_progress) leaves it alone.
    assignees := OLD.assignee_agent_id IS DISTINCT FROM NEW.assignee_agent_id
              OR (OLD.status IN ('done', 'cancelled')) <> (NEW.status IN ('done', 'cancelled'));
    days := OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.completed_at IS DISTINCT FROM NEW.completed_at;
    goals := OLD.goal_id IS DISTINCT FROM NEW.goal_id OR (OLD.status = 'done') <> (NEW.status = 'done');
  END IF;
  -- task_counts rows, then task_creator_counts, task_assignee_counts, task_days and
  -- goal_task_counts rows in every transaction, so two cannot wait on each other.
  IF TG_OP IN ('UPDATE', 'DELETE') AND counts THEN
    INSERT INTO task_counts AS c (company_id, status, priority, slot, n) VALUES (OLD.company_id, OLD.status, OLD.priority, my_slot, -1)
    ON CONFLICT (company_id, status, priority, slot) DO UPDATE SET n = c.n - 1;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND counts THEN
    INSERT INTO task_counts AS c (company_id, status, priority, slot, n) VALUES (NEW.company_id, NEW.status, NEW.priority, my_slot, 1)
    ON CONFLICT (company_id, status, priority, slot) DO UPDATE SET n = c.n + 1;
  END IF;
  -- Slotted like task_counts: one person creating tasks from many connections at once.
  IF TG_OP IN ('UPDATE', 'DELETE') AND creators AND OLD.created_by_user_id IS NOT NULL THEN
    INSERT INTO task_creator_counts AS c (company_id, user_id, status, slot, n) VALUES (OLD.company_id, OLD.created_by_user_id, OLD.status, my_slot, -1)
    ON CONFLICT (company_id, user_id, status, slot) DO UPDATE SET n = c.n - 1;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND creators AND NEW.created_by_user_id IS NOT NULL THEN
    INSERT INTO task_creator_counts AS c (company_id, user_id, status, slot, n) VALUES (NEW.company_id, NEW.created_by_user_id, NEW.status, my_slot, 1)
    ON CONFLICT (company_id, user_id, status, slot) DO UPDATE SET n = c.n + 1;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') AND assignees AND OLD.assignee_agent_id IS NOT NULL AND OLD.status NOT IN ('done', 'cancelled') THEN
    INSERT INTO task_assignee_counts AS c (company_id, agent_id, slot, n) VALUES (OLD.company_id, OLD.assignee_agent_id, my_slot, -1)
    ON CONFLICT (agent_id, slot) DO UPDATE SET n = c.n - 1;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND assignees AND NEW.assignee_agent_id IS NOT NULL AND NEW.status NOT IN ('done', 'cancelled') THEN
    INSERT INTO task_assignee_counts AS c (company_id, agent_id, slot, n) VALUES (NEW.company_id, NEW.assignee_agent_id, my_slot, 1)
    ON CONFLICT (agent_id, slot) DO UPDATE SET n = c.n + 1;
  END IF;
  -- Slotted too: a day's creates from many connections at once. A slot's row may go below 0
  -- (a task counted in one slot, moved or deleted through another); the day's sum is right.
  IF TG_OP IN ('UPDATE', 'DELETE') AND days THEN
    INSERT INTO task_days AS d (company_id, day, slot, created) VALUES (OLD.company_id, (OLD.created_at AT TIME ZONE 'UTC')::date, my_slot, -1)
    ON CONFLICT (company_id, day, slot) DO UPDATE SET created = d.created - 1;
    IF OLD.completed_at IS NOT NULL THEN
      INSERT INTO task_days AS d (company_id, day, slot, completed) VALUES (OLD.company_id, (OLD.completed_at AT TIME ZONE 'UTC')::date, my_slot, -1)
      ON CONFLICT (company_id, day, slot) DO UPDATE SET completed = d.completed - 1;
    END IF;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND days THEN
    INSERT INTO task_days AS d (company_id, day, slot, created) VALUES (NEW.company_id, (NEW.created_at AT TIME ZONE 'UTC')::date, my_slot, 1)
    ON CONFLICT (company_id, day, slot) DO UPDATE SET created = d.created + 1;
    IF NEW.completed_at IS NOT NULL THEN
      INSERT INTO task_days AS d (company_id, day, slot, completed) VALUES (NEW.company_id, (NEW.completed_at AT TIME ZONE 'UTC')::date, my_slot, 1)
      ON CONFLICT (company_id, day, slot) DO UPDATE SET completed = d.completed + 1;
    END IF;
  END IF;
  -- Through the goal's row: a goal deleted in the same transaction (its tasks detached first)
  -- has taken its counters with it, and is left alone.
  IF TG_OP IN ('UPDATE', 'DELETE') AND goals AND OLD.goal_id IS NOT NULL THEN
    INSERT INTO goal_task_counts AS c (goal_id, slot, total, done)
    SELECT id, my_slot, -1, -(OLD.status = 'done')::int FROM goals WHERE id = OLD.goal_id
    ON CONFLICT (goal_id, slot) DO UPDATE SET total = c.total - 1, done = c.done + excluded.done;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND goals AND NEW.goal_id IS NOT NULL THEN
    INSERT INTO goal_task_counts AS c (goal_id, slot, total, done)
    SELECT id, my_slot, 1, (NEW.status = 'done')::int FROM goals WHERE id = NEW.goal_id
    ON CONFLICT (goal_id, slot) DO UPDATE SET total = c.total + 1, done = c.done + excluded.done;
  END IF;
  RETURN NULL;
END $$;
