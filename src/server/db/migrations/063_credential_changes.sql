-- Every change that can alter what a credential resolves to (a key revoked or expiring, a
-- user deactivated, renamed or resetting their password, a membership added, changed or
-- removed) notifies `credentials_changed` at commit, from whichever process made it. API
-- processes listen and forget the credentials they cache (src/server/auth/credential-cache.ts).
-- Statement triggers: one notification per statement, and PostgreSQL folds repeats within a
-- transaction into one.

CREATE FUNCTION notify_credentials_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('credentials_changed', '');
  RETURN NULL;
END $$;

CREATE TRIGGER api_keys_credentials_changed
  AFTER UPDATE OF key_hash, user_id, created_at, expires_at, revoked_at OR DELETE OR TRUNCATE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION notify_credentials_changed();

CREATE TRIGGER users_credentials_changed
  AFTER UPDATE OF name, email, is_active, password_changed_at OR DELETE OR TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION notify_credentials_changed();

CREATE TRIGGER memberships_credentials_changed
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON memberships
  FOR EACH STATEMENT EXECUTE FUNCTION notify_credentials_changed();
