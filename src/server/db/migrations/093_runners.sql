-- Runners a company's server has heard from (claims and heartbeats), for the runners list
-- (src/domain/runners). One row per runner id and company. A runner's claims and heartbeats
-- refresh last_seen_at at most once every few seconds (runners/seen.ts), so this table costs
-- the runners' hot paths almost nothing.
CREATE TABLE runners (
  company_id     uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  runner_id      varchar(100) NOT NULL,
  -- The adapters the runner claims for; null when it claims for every adapter.
  adapters       jsonb,
  -- Versions of the agent CLIs (and of the runner) it reported, e.g. {"claude": "2.0.14"}.
  versions       jsonb NOT NULL DEFAULT '{}'::jsonb,
  first_seen_at  timestamptz NOT NULL DEFAULT now(),
  last_seen_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, runner_id)
);
CREATE INDEX runners_recent ON runners (company_id, last_seen_at DESC);
