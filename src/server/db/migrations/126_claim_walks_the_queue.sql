-- claim_run() walks runs_claim, the company's queued runs in order, whatever the statistics:
-- incremental sorts are priced out as full sorts were (db/functions/claim_run.sql).
\ir ../functions/claim_run.sql
