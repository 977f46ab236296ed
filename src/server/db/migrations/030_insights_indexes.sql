-- Dashboard and costs aggregate a company's runs by the day they were created (the same day
-- that decides month-to-date spend). This covering index lets those aggregates read only the
-- index entries of the date range, never the runs' rows with their transcripts.
CREATE INDEX runs_created_totals ON runs (company_id, created_at)
  INCLUDE (agent_id, task_id, status, cost_cents, tokens_in, tokens_out);

-- The dashboard counts a company's tasks by status and by priority from this index alone.
CREATE INDEX tasks_status_priority ON tasks (company_id, status, priority);
