-- The inbox's last 20 failed runs of the week (domain/insights/inbox.ts): found by walking every
-- run the company ended in the last 7 days, newest first, through runs_ended; a company whose
-- runs seldom fail read a week of runs on every inbox. This index holds failed runs only, in the
-- inbox's order, so the inbox reads the 20 it shows. It costs a write only when a run fails.
CREATE INDEX runs_failed ON runs (company_id, ended_at DESC, id DESC) WHERE status = 'failed';
