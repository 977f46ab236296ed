-- A goal's tasks_total and tasks_done (the goals list, a goal) read in time that does not grow
-- with its tasks: they were counted on every read through tasks_goal, 17.7 ms for a goal of
-- 100,000 tasks (a parallel scan of the table), once per goal of a list. And the task list
-- filtered by goal read in its order, like every other filter of it: through tasks_goal
-- (goal_id, status) it read all of the goal's tasks and sorted them for a page.

-- Linked and done tasks by goal, kept by tasks_counters_follow() in 16 slots per goal like
-- task_counts, so a goal whose tasks move from many connections at once does not queue on one
-- row. Deleting a goal deletes its rows.
CREATE TABLE goal_task_counts (
  goal_id uuid NOT NULL REFERENCES goals(id) ON DELETE CASCADE,
  slot smallint NOT NULL DEFAULT 0,
  total integer NOT NULL DEFAULT 0,
  done integer NOT NULL DEFAULT 0,
  PRIMARY KEY (goal_id, slot)
);

\ir ../functions/tasks_counters_follow.sql

-- The trigger on updates also follows a change of goal.
DROP TRIGGER tasks_recounted ON tasks;
CREATE CONSTRAINT TRIGGER tasks_recounted AFTER UPDATE OF status, priority, created_at, completed_at, created_by_user_id, assignee_agent_id, goal_id ON tasks
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.priority IS DISTINCT FROM NEW.priority
        OR OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.completed_at IS DISTINCT FROM NEW.completed_at
        OR OLD.created_by_user_id IS DISTINCT FROM NEW.created_by_user_id
        OR OLD.assignee_agent_id IS DISTINCT FROM NEW.assignee_agent_id
        OR OLD.goal_id IS DISTINCT FROM NEW.goal_id)
  EXECUTE FUNCTION tasks_counters_follow();

INSERT INTO goal_task_counts (goal_id, total, done)
SELECT goal_id, count(*), count(*) FILTER (WHERE status = 'done') FROM tasks WHERE goal_id IS NOT NULL GROUP BY 1;

-- The task list's order (tasks/list.ts LIST_ORDER), as tasks_project has it for projects.
DROP INDEX tasks_goal;
CREATE INDEX tasks_goal ON tasks (goal_id, sort_order, number DESC) WHERE goal_id IS NOT NULL;
