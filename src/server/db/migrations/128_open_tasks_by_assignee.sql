-- An agent's open_tasks (every Agent record: the agents list, the org chart, a run's context)
-- read in time that does not grow with its tasks: counted its open tasks on every read before,
-- through tasks_open_assignee (an agents list took 3.2 ms for one agent holding 100,000 open
-- tasks, against 0.4 ms for two with 781 between them; 3.9 ms of PostgreSQL for 50 agents
-- holding 37,500).

-- Open (neither done nor cancelled) tasks by assignee, kept by tasks_counters_follow() in 16
-- slots per agent like task_counts, so an agent whose tasks move from many connections at once
-- does not queue on one row. Agents are removed only with their company.
CREATE TABLE task_assignee_counts (
  company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  slot smallint NOT NULL DEFAULT 0,
  n integer NOT NULL DEFAULT 0,
  PRIMARY KEY (agent_id, slot)
);

\ir ../functions/tasks_counters_follow.sql

-- The trigger on updates also follows a change of assignee.
DROP TRIGGER tasks_recounted ON tasks;
CREATE CONSTRAINT TRIGGER tasks_recounted AFTER UPDATE OF status, priority, created_at, completed_at, created_by_user_id, assignee_agent_id ON tasks
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.priority IS DISTINCT FROM NEW.priority
        OR OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.completed_at IS DISTINCT FROM NEW.completed_at
        OR OLD.created_by_user_id IS DISTINCT FROM NEW.created_by_user_id
        OR OLD.assignee_agent_id IS DISTINCT FROM NEW.assignee_agent_id)
  EXECUTE FUNCTION tasks_counters_follow();

INSERT INTO task_assignee_counts (company_id, agent_id, n)
SELECT company_id, assignee_agent_id, count(*) FROM tasks
 WHERE assignee_agent_id IS NOT NULL AND status NOT IN ('done', 'cancelled') GROUP BY 1, 2;
