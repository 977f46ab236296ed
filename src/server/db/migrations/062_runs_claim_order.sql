-- The claim takes the oldest queued run by (created_at, id). The index held only created_at,
-- so runs created in the same instant (one statement queueing many) were all read and sorted
-- on every claim: 10 ms for 10,000 such runs, against 0.08 ms with the whole order in the index.
DROP INDEX runs_claim;
CREATE INDEX runs_claim ON runs (company_id, created_at, id) WHERE status = 'queued';

-- Every claim leaves a dead entry at the head of runs_claim, where the next claim starts to
-- read; until vacuum removes them each claim steps over all of them. Vacuum the runs table
-- after 2% of its rows changed rather than the default 20%.
ALTER TABLE runs SET (autovacuum_vacuum_scale_factor = 0.02);
