-- A running run's progress reports and heartbeats rewrite its row without a new entry in any
-- index (HOT updates): every report of a long run - the runner flushes every 2 s - wrote nine
-- index entries (one per index of runs), since each changed a column some index holds.
--
-- runs_running keyed its running runs by heartbeat too, which no read uses: the lease checks
-- ask coalesce(heartbeat_at, started_at), so they read a company's running runs and filter
-- them either way. runs_ended, which held cost_cents, has no reader since costs are read from
-- run_totals and the inbox's failed runs from runs_failed (migration 127). And a run's new
-- version must find room on its page: runs pages are left a tenth free.
DROP INDEX runs_ended;
DROP INDEX runs_running;
CREATE INDEX runs_running ON runs (company_id) WHERE status = 'running';
ALTER TABLE runs SET (fillfactor = 90);
