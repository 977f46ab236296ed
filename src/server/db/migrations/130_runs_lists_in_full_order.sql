-- The runs list is ordered newest first with the id breaking ties (created_at DESC, id DESC).
-- Its indexes ended at created_at, so a page needed a sort on top of the index; planned for a
-- company the statistics believe empty, that sort took every run of the company (a page of 100
-- read all 5,000). Each index now ends in the list's whole order, so a page is the first rows
-- of one index whatever the statistics.
DROP INDEX runs_list;
CREATE INDEX runs_list ON runs (company_id, created_at DESC, id DESC);
DROP INDEX runs_agent;
CREATE INDEX runs_agent ON runs (agent_id, created_at DESC, id DESC);
DROP INDEX runs_task;
CREATE INDEX runs_task ON runs (task_id, created_at DESC, id DESC) WHERE task_id IS NOT NULL;
DROP INDEX runs_status;
CREATE INDEX runs_status ON runs (company_id, status, created_at DESC, id DESC);
