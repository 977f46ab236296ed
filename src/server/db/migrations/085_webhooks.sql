-- Outbound webhooks (docs/webhooks.md). A subscription per row of `webhooks`; every event a
-- write publishes to a company with enabled subscriptions becomes one row of
-- `webhook_deliveries` per matching subscription, inserted in the writing transaction (an
-- outbox), and is sent afterwards by the delivery worker (src/domain/webhooks/worker.ts).

CREATE TABLE webhooks (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  company_id       uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  url              varchar(2000) NOT NULL,
  events           text[] NOT NULL DEFAULT '{*}',
  enabled          boolean NOT NULL DEFAULT true,
  description      text,
  -- Needed in clear to sign (Standard Webhooks signs with the shared secret); never answered
  -- after the create.
  secret           text NOT NULL,
  disabled_reason  text,
  -- First failed attempt since the last success; 3 days of failure disable the subscription.
  failing_since    timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_company ON webhooks (company_id, created_at);

CREATE TABLE webhook_deliveries (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Creation order, for delivering one subscription's events in order.
  seq               bigserial NOT NULL,
  webhook_id        uuid NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  company_id        uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  -- The payload's id and the `webhook-id` header of every attempt.
  event_id          text NOT NULL,
  type              text NOT NULL,
  payload           jsonb NOT NULL,
  status            text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts          integer NOT NULL DEFAULT 0,
  last_status_code  integer,
  last_error        text,
  last_attempt_at   timestamptz,
  -- When the worker may take it next.
  next_attempt_at   timestamptz,
  -- Set while an attempt is in flight: no other worker takes the row before then (a worker
  -- that died mid-attempt leaves it to be taken again afterwards).
  leased_until      timestamptz,
  -- Retries go on for 24 hours from here: the creation, or a manual retry.
  retry_window_from timestamptz NOT NULL DEFAULT now(),
  delivered_at      timestamptz,
  created_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, seq) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, created_at DESC, seq DESC);

-- Each API process remembers which companies have no enabled subscription, so their writes
-- skip the outbox entirely; any change to subscriptions tells every process to forget.
CREATE FUNCTION notify_webhooks_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('webhooks_changed', '');
  RETURN NULL;
END $$;

CREATE TRIGGER webhooks_changed
  AFTER INSERT OR UPDATE OF enabled, events OR DELETE OR TRUNCATE ON webhooks
  FOR EACH STATEMENT EXECUTE FUNCTION notify_webhooks_changed();
