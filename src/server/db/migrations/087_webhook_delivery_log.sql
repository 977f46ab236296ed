-- Finished webhook deliveries are kept 30 days for the log, then removed by the scheduler's
-- retention pass in batches (src/domain/webhooks/prune.ts), which finds them with this index.
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (created_at) WHERE status <> 'pending';
