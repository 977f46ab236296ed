-- A run a person asked to start with a new CLI session (POST /agents/{id}/wake with
-- fresh_session): its runner does not resume the session of the agent's last run on the task.
ALTER TABLE runs ADD COLUMN fresh_session boolean NOT NULL DEFAULT false;
