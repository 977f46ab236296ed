-- The scheduler remembers the last heartbeat slot it fired for each agent, so that several
-- scheduler instances on one database wake an agent once per slot (see src/scheduler/fire.ts).
-- Kept apart from the agents table: it is scheduler bookkeeping, not part of the Agent record.
CREATE TABLE agent_heartbeat_slots (
  agent_id      uuid PRIMARY KEY REFERENCES agents(id) ON DELETE CASCADE,
  company_id    uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  last_slot_at  timestamptz NOT NULL
);

-- The scheduler's definition refresh reads the agents that have their own schedule.
CREATE INDEX agents_heartbeat_cron ON agents (company_id) WHERE heartbeat_cron IS NOT NULL;
