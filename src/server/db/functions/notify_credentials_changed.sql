-- The baseline's credentials notification (001_baseline.sql includes this file). Migration 134
-- replaced it by notify_channel('credentials_changed') and dropped it.
-- Notifies `credentials_changed` at commit. API processes listen and forget the credentials
-- they cache (src/server/auth/credential-cache.ts). Fired by statement triggers on api_keys,
-- users and memberships: one notification per statement, and PostgreSQL folds repeats within a
-- transaction into one.
CREATE OR REPLACE FUNCTION notify_credentials_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('credentials_changed', '');
  RETURN NULL;
END $$;
