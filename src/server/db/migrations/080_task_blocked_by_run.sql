-- The run whose agent moved a task to `blocked` (its question waits for an answer), or null when
-- the task is not blocked or a person blocked it. A person's comment on such a task wakes its
-- assignee (src/domain/tasks/delegation.ts). Set and cleared by every status change of the task.
ALTER TABLE tasks ADD COLUMN blocked_by_run_id uuid;
