-- Delivery workers no longer look for due deliveries every second (an idle server's main
-- work): a write that queues deliveries wakes the workers of every process at its commit
-- through a notification, whichever process made it (an API instance wakes its own worker at
-- once too; the scheduler process has none). One notification per statement, folded into one
-- per transaction by PostgreSQL.
--
-- Every such "tell the other processes" trigger now calls one function, the channel being the
-- trigger's argument: the credentials' and the subscriptions' triggers had a copy each, with
-- their channel written in.
CREATE FUNCTION notify_channel() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify(TG_ARGV[0], '');
  RETURN NULL;
END $$;

CREATE TRIGGER deliveries_queued
  AFTER INSERT ON webhook_deliveries
  FOR EACH STATEMENT EXECUTE FUNCTION notify_channel('deliveries_queued');

CREATE OR REPLACE TRIGGER webhooks_changed
  AFTER INSERT OR UPDATE OF enabled, events OR DELETE OR TRUNCATE ON webhooks
  FOR EACH STATEMENT EXECUTE FUNCTION notify_channel('webhooks_changed');
CREATE OR REPLACE TRIGGER api_keys_credentials_changed
  AFTER UPDATE OF key_hash, user_id, created_at, expires_at, revoked_at OR DELETE OR TRUNCATE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION notify_channel('credentials_changed');
CREATE OR REPLACE TRIGGER users_credentials_changed
  AFTER UPDATE OF name, email, is_active, password_changed_at OR DELETE OR TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION notify_channel('credentials_changed');
CREATE OR REPLACE TRIGGER memberships_credentials_changed
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON memberships
  FOR EACH STATEMENT EXECUTE FUNCTION notify_channel('credentials_changed');

DROP FUNCTION notify_webhooks_changed();
DROP FUNCTION notify_credentials_changed();
