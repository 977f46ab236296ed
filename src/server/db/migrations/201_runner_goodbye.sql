-- A runner stopped cleanly says goodbye (POST .../runners/{runner_id}/goodbye): its presence
-- reads `stopped` at once instead of `online` until two lease lengths of silence make it `gone`.
-- Its next claim or heartbeat (a restart under the same name) clears it.
ALTER TABLE runners ADD COLUMN stopped_at timestamptz;
