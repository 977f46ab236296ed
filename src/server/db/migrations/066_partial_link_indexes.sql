-- Indexes on optional links hold only the rows that have the link. Most tasks have no parent,
-- goal or project, and every task insert and status change added a NULL entry to each of those
-- indexes that no query reads: every lookup by a link (`project_id = $1`, a goal's tasks, the
-- foreign keys' ON DELETE SET NULL) names a value, which the planner knows is not null.
DROP INDEX tasks_project;
CREATE INDEX tasks_project ON tasks (project_id, sort_order, number DESC) WHERE project_id IS NOT NULL;
DROP INDEX tasks_goal;
CREATE INDEX tasks_goal ON tasks (goal_id, status) WHERE goal_id IS NOT NULL;
DROP INDEX tasks_parent;
CREATE INDEX tasks_parent ON tasks (parent_id, sort_order, number DESC) WHERE parent_id IS NOT NULL;
DROP INDEX tasks_assignee;
CREATE INDEX tasks_assignee ON tasks (assignee_agent_id, sort_order, number DESC) WHERE assignee_agent_id IS NOT NULL;
DROP INDEX tasks_created_by;
CREATE INDEX tasks_created_by ON tasks (created_by_user_id, updated_at DESC) WHERE created_by_user_id IS NOT NULL;
DROP INDEX runs_task;
CREATE INDEX runs_task ON runs (task_id, created_at DESC) WHERE task_id IS NOT NULL;
