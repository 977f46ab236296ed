-- Delivery workers no longer look for due deliveries every second (an idle server's main
-- work): a write that queues deliveries wakes the workers of every process at its commit
-- through this notification, whichever process made it (an API instance wakes its own worker
-- at once too; the scheduler process has none). One notification per statement, folded into
-- one per transaction by PostgreSQL.
CREATE FUNCTION notify_deliveries_queued() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('deliveries_queued', '');
  RETURN NULL;
END $$;

CREATE TRIGGER deliveries_queued
  AFTER INSERT ON webhook_deliveries
  FOR EACH STATEMENT EXECUTE FUNCTION notify_deliveries_queued();
