-- A run started by a runner's claim is audited as the service starting the agent's run
-- (`system`, named after the agent, as SPEC.md names system actors when an agent is involved),
-- not as the person whose API key the runner holds: the activity log read "Dana - Started run"
-- for every run of every runner of Dana's.
\ir ../functions/claim_run.sql
