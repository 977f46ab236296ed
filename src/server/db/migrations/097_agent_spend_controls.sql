-- Spend and runaway control (API-DECISIONS.md "Agent settings beyond the spec", "Spend control"):
-- a per-run cost cap the runner enforces, the runaway breaker's settings, and heartbeats that
-- skip an agent with nothing to do. All off by default, as SPEC.md behaves.
ALTER TABLE agents
  ADD COLUMN max_run_cost_cents integer NOT NULL DEFAULT 0 CHECK (max_run_cost_cents >= 0),
  ADD COLUMN max_runs_per_hour integer NOT NULL DEFAULT 0 CHECK (max_runs_per_hour >= 0),
  ADD COLUMN pause_on_repeat boolean NOT NULL DEFAULT false,
  ADD COLUMN heartbeat_skip_idle boolean NOT NULL DEFAULT false,
  -- When a person last approved the breaker's `action` approval: runs started before it do not
  -- count towards max_runs_per_hour ("the count restarts from the approval").
  ADD COLUMN breaker_reset_at timestamptz;
