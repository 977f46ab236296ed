-- A company import queues its open tasks' assignment runs and counts them afresh with its
-- tasks (recount_totals): the runs' totals trigger skips the runs of the company a transaction
-- names in shopfloor.uncounted_company, as the tasks' counters trigger does.
\ir ../functions/runs_totals_follow.sql
