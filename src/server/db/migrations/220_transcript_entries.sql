-- A run's transcript as one row per entry (API-DECISIONS.md "Limits that protect every
-- company"): it was one jsonb value on the run, written whole again by every report, so a
-- report's cost grew with the transcript it extended (15 ms at the start, 65 ms at 20 MB) and
-- every read of the run carried all of it. Now a report inserts its new entries only, and a read
-- takes the last entries or a page by position, through the primary key.
--
-- `seq` is the entry's position, from 1: entry i of the API's transcript (from 0) is seq i + 1,
-- so "the entries after the first N" are seq > N. runs.transcript_count is how many a run has;
-- a report raises it in the same UPDATE that holds the run's row, so concurrent writers of one
-- run are ordered by that lock and take consecutive positions. `entry` is the entry as the API
-- shows it, {timestamp, role, text}, kept as written (a runner's own timestamp text included).
CREATE TABLE run_transcript_entries (
  run_id uuid NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq integer NOT NULL CHECK (seq > 0),
  entry jsonb NOT NULL,
  PRIMARY KEY (run_id, seq)
);

ALTER TABLE runs ADD COLUMN transcript_count integer NOT NULL DEFAULT 0;

INSERT INTO run_transcript_entries (run_id, seq, entry)
SELECT r.id, x.n, x.e FROM runs r, jsonb_array_elements(r.transcript) WITH ORDINALITY AS x(e, n);

UPDATE runs SET transcript_count = jsonb_array_length(transcript) WHERE jsonb_array_length(transcript) > 0;

ALTER TABLE runs DROP COLUMN transcript;

-- As the transcript column had (migration 137): lz4 where PostgreSQL has it, for entries long
-- enough to be compressed.
DO $$
BEGIN
  ALTER TABLE run_transcript_entries ALTER COLUMN entry SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  NULL;
END $$;

\ir ../functions/queue_run.sql
\ir ../functions/claim_run.sql
