-- The dashboard's "for you" is the five newest open tasks the caller created, ordered
-- updated_at DESC, id DESC: the first entries of tasks_open_creator_recent. For a company the
-- statistics believe empty, the creator's index looked as cheap, and as it ended at updated_at
-- the plan through it read and sorted all of the caller's tasks (5,000 rows for five), about
-- half the time. It now ends in the same whole order, so either index gives the five without
-- a sort, after a few rows.
DROP INDEX tasks_created_by;
CREATE INDEX tasks_created_by ON tasks (created_by_user_id, updated_at DESC, id DESC) WHERE created_by_user_id IS NOT NULL;
