-- The runaway breaker's claim-time check (API-DECISIONS.md "Spend control"): claim_run reports
-- agents over their max_runs_per_hour before choosing a candidate (runs/claim.ts pauses them
-- through runs/breaker.ts and claims again).
CREATE INDEX agents_run_limit ON agents (company_id) WHERE max_runs_per_hour > 0;
-- Runs an agent started in the breaker's window, counted by the claim for limited agents.
CREATE INDEX runs_agent_started ON runs (agent_id, started_at) WHERE started_at IS NOT NULL;

\ir ../functions/claim_run.sql
