-- Creates of one company from many connections at once each added to the day's row of task_days
-- and to their agent's row of run_totals: one row each, so every create waited for the one
-- before it to commit (with its WAL flush), whatever else it could do at the same time. Both now
-- have a row per connection slot, as task_counts has (counter_slot()); their readers add the
-- slots up. A connection's slot is set by the server (shopfloor.slot), no longer the pid's.
ALTER TABLE task_days ADD COLUMN slot smallint NOT NULL DEFAULT 0;
ALTER TABLE task_days DROP CONSTRAINT task_days_pkey, ADD PRIMARY KEY (company_id, day, slot);
ALTER TABLE run_totals ADD COLUMN slot smallint NOT NULL DEFAULT 0;
ALTER TABLE run_totals DROP CONSTRAINT run_totals_key,
  ADD CONSTRAINT run_totals_key UNIQUE NULLS NOT DISTINCT (company_id, day, agent_id, project_id, slot);
-- Past days' slots are folded into slot -1 (insights/fold-slots.ts), found by these.
CREATE INDEX task_days_unfolded ON task_days (day) WHERE slot >= 0;
CREATE INDEX run_totals_unfolded ON run_totals (day) WHERE slot >= 0;
\ir ../functions/counter_slot.sql
\ir ../functions/tasks_counters_follow.sql
\ir ../functions/run_totals_add.sql
