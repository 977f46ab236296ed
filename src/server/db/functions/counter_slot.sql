-- The slot of the counters a connection adds to (task_counts, task_days, run_totals and the other
-- slotted totals): the number the server gave the connection when it opened it (shopfloor.slot,
-- no two of a server's open connections the same while it has 16 or fewer), else one from the
-- backend's pid (psql, pgbench, the embedded database). Connections adding to one counter at once
-- then each add to a row of their own, instead of each waiting for the one before to commit.
-- Plain SQL, so PL/pgSQL inlines it into the expression that calls it.
CREATE OR REPLACE FUNCTION counter_slot() RETURNS smallint LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT coalesce(nullif(current_setting('shopfloor.slot', true), '')::smallint, (pg_backend_pid() % 16)::smallint)
$$;
