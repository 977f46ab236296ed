-- Tasks after a failed run (API-DECISIONS.md): a run that moved its task to in_progress at
-- claim and then fails or is cancelled puts the task back where it was. The run remembers
-- the status its task had: task_status_before, set by the claim only when it moved the task
-- (null otherwise). runs/finish.ts reads it when a run ends failed or cancelled.
ALTER TABLE runs ADD COLUMN task_status_before text;

-- The claim records it: claim_run() as it is now (its file reads the task before starting the run).
\ir ../functions/claim_run.sql
