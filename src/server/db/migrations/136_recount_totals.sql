-- A company import writes its tasks without counting them one by one and then counts them
-- afresh (db/functions/recount_totals.sql): the counters trigger skips the tasks of the
-- company a transaction names in shopfloor.uncounted_company.
\ir ../functions/recount_totals.sql
\ir ../functions/tasks_counters_follow.sql
