-- An API key can be limited to one company (API-DECISIONS.md "Agents run confined"): with
-- company_id set, the key acts in that company only; every other company answers as for a
-- stranger and the list of companies holds that one alone. A runner's key is made this way,
-- so a key found on a runner's machine reaches one company, not every company of its owner.
-- The key goes with its company.
ALTER TABLE api_keys ADD COLUMN company_id uuid REFERENCES companies(id) ON DELETE CASCADE;

-- What a key may reach is part of the credentials cache's answers: forget them when it changes.
CREATE OR REPLACE TRIGGER api_keys_credentials_changed
  AFTER UPDATE OF key_hash, user_id, created_at, expires_at, revoked_at, company_id OR DELETE OR TRUNCATE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION notify_channel('credentials_changed');
