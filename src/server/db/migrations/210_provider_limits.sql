-- Provider limits and plans (API-DECISIONS.md "Provider limits, plans and fallback").
--
-- runs.not_before: a run queued to replace one its provider refused for a quota or rate limit
-- waits for the limit's reset; no claim takes it before then (claim_run below). Null for every
-- other run. runs.billing: how the run's usage was paid, `api` (metered key) or `plan` (a
-- subscription login; cost_cents then holds the list-price equivalent).
-- runners.cooldowns: the provider credentials a runner is not using until their reset, as its
-- last claim or heartbeat said: [{"provider": "anthropic", "until": "..."}].
ALTER TABLE runs ADD COLUMN not_before timestamptz;
ALTER TABLE runs ADD COLUMN billing text NOT NULL DEFAULT 'api' CHECK (billing IN ('api', 'plan'));
ALTER TABLE runners ADD COLUMN cooldowns jsonb NOT NULL DEFAULT '[]'::jsonb;
\ir ../functions/claim_run.sql
