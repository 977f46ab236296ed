-- The tasks a person created, in the task list's order (`GET /tasks?created_by=me`): the
-- creator's index ended in the dashboard's order (updated_at DESC, id DESC), so the list read
-- all of the caller's tasks and sorted them for a page, whenever the planner took that index
-- (for a company its statistics believe empty, about half the time). It now holds each
-- company's creator's tasks in list order, as the assignee's, project's, goal's and parent's
-- indexes do, so a page stops after its rows. The dashboard's "for you" reads
-- tasks_open_creator_recent, which alone gives its order without a sort.
DROP INDEX tasks_created_by;
CREATE INDEX tasks_created_by ON tasks (company_id, created_by_user_id, sort_order, number DESC) WHERE created_by_user_id IS NOT NULL;
