-- Tasks created and completed per day are counted in task_days (060); nothing reads tasks by
-- creation or completion day any more, and every task insert and completion kept both indexes.
DROP INDEX IF EXISTS tasks_created_day;
DROP INDEX IF EXISTS tasks_completed_day;
