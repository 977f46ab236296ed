-- Transcript retention (TRANSCRIPT_RETENTION_DAYS, src/domain/runs/retention.ts): when a run's
-- transcript was emptied, so the run can say so; and the index the scheduler's small batches
-- find the next finished, untrimmed runs with, oldest first.
ALTER TABLE runs ADD COLUMN transcript_trimmed_at timestamptz;
CREATE INDEX runs_untrimmed_ended ON runs (ended_at) WHERE ended_at IS NOT NULL AND transcript_trimmed_at IS NULL;
