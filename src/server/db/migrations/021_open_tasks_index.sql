-- An agent's `open_tasks` (assigned, neither done nor cancelled) is counted for every agent on
-- each agent list, get and org chart. This partial index makes each count an index-only scan
-- of that agent's open tasks instead of a visit to every task it was ever given.
CREATE INDEX IF NOT EXISTS tasks_open_assignee ON tasks (assignee_agent_id) WHERE status NOT IN ('done', 'cancelled');
