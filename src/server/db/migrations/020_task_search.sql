-- The task list's `q` filter is a case-insensitive substring match (ILIKE '%...%') on title and
-- description. Without help it reads every task of the company; trigram indexes let PostgreSQL
-- find the matching rows directly. pg_trgm is a trusted extension on PostgreSQL 13+, so the
-- database owner may create it. Where it is not available (the embedded database ships it
-- only on request) or not permitted, the indexes are skipped: the filter gives the same
-- answers, only without the index.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') THEN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    CREATE INDEX IF NOT EXISTS tasks_title_trgm ON tasks USING gin (title gin_trgm_ops);
    CREATE INDEX IF NOT EXISTS tasks_description_trgm ON tasks USING gin (description gin_trgm_ops);
  END IF;
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'pg_trgm not permitted; task search runs without trigram indexes';
END
$$;
