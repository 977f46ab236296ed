-- Per-agent adapter settings (model, extra arguments, variables passed through, http endpoint)
-- and the agent CLI's session id kept with each run, so a later run can resume it.
ALTER TABLE agents ADD COLUMN adapter_config jsonb NOT NULL DEFAULT '{}'::jsonb;
ALTER TABLE runs ADD COLUMN session_id text;
