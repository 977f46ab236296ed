-- A run's transcript is one JSON value (SPEC.md), so each report of a running run writes it
-- whole again, compressed: a report's cost grows with the transcript it extends. lz4 writes and
-- reads it several times faster than PostgreSQL's default (pglz): 200 appends to a transcript of
-- 2,000 entries took 74 ms instead of 466; through the API, a report to a run of 1,500-2,000
-- entries (340 KB) cost PostgreSQL 1.7-1.9 ms of CPU instead of 2.8, for a fifth more WAL (26 KB
-- a report instead of 21). Values written before keep their compression until written again.
-- PostgreSQL built without lz4 (the embedded database) keeps pglz.
DO $$
BEGIN
  ALTER TABLE runs ALTER COLUMN transcript SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  NULL;
END $$;
