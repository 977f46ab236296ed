-- "Does this agent run anything?" is answered by one probe of a unique index whatever the
-- statistics. Statistics taken while no run was running say so of a partial index on
-- status = 'running', and PostgreSQL then priced scanning the whole index (or the company's
-- part of runs_running) once per queued run the claim walked past like one probe: with 300
-- agents at work, each with a run queued, a claim read about 45,000 rows (16 ms). The index
-- now holds an expression over every run, null unless running: only the statements written
-- with it (runs/model.ts: runningAgentIs) can use it, and reading all of it is never cheap.
DROP INDEX runs_one_running_per_agent;
-- One running run per agent: every other run indexes as null, and nulls never collide.
CREATE UNIQUE INDEX runs_one_running_per_agent ON runs ((CASE WHEN status = 'running' THEN agent_id END));
\ir ../functions/claim_run.sql
