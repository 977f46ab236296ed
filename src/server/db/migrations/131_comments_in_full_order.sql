-- A task's comments are read oldest first, or the newest 20 for a run's context, with the id
-- breaking ties (created_at, id). The index ended at created_at, so the newest 20 needed a sort
-- on top of it; planned for a task the statistics never saw, the sort took every comment of the
-- task, on every claim of a run on it (2,000 rows for a task with 2,000 comments). It now ends
-- in the whole order, so the 20 are the last entries of the task's part of it.
DROP INDEX task_comments_task;
CREATE INDEX task_comments_task ON task_comments (task_id, created_at, id);
