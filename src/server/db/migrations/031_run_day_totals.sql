-- Totals of a company's runs per UTC day of creation, agent and project (the project of the
-- run's task). A day is stored once it is over and none of its runs is queued or running: its
-- runs can then never change again (a finished run takes no report and no cancel), so the
-- dashboard and costs add up a few rows per day instead of every run of the month.
-- Days are stored lazily, by the first read that needs them (domain/insights/run-totals.ts).
CREATE TABLE run_days (
  company_id  uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  day         date NOT NULL,
  PRIMARY KEY (company_id, day)
);

CREATE TABLE run_day_totals (
  company_id      uuid NOT NULL,
  day             date NOT NULL,
  agent_id        uuid NOT NULL,
  project_id      uuid,
  runs            integer NOT NULL,
  runs_succeeded  integer NOT NULL,
  runs_failed     integer NOT NULL,
  cost_cents      bigint NOT NULL,
  tokens_in       bigint NOT NULL,
  tokens_out      bigint NOT NULL,
  FOREIGN KEY (company_id, day) REFERENCES run_days (company_id, day) ON DELETE CASCADE
);
CREATE INDEX run_day_totals_day ON run_day_totals (company_id, day);

-- The dashboard's "for you" counts the caller's open tasks in a company from this index alone.
CREATE INDEX tasks_open_creator ON tasks (created_by_user_id, company_id, status) WHERE status NOT IN ('done', 'cancelled');
