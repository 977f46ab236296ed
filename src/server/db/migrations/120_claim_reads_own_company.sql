-- The claim's check that a candidate's agent has no running run is bounded by the company
-- (db/functions/claim_run.sql): it could read every running run of every company.
\ir ../functions/claim_run.sql
