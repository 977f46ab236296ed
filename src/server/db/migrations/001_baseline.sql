-- The whole data model as it stands, in one file: tables, their indexes and their triggers.
-- The functions the triggers and hot paths call live in ../functions/, one file per function,
-- included here with psql's `\ir` (src/server/db/migrate.ts does the same). Migrations that
-- follow (NNN_name.sql) change this schema; a landed migration is never edited again, and
-- src/server/db/schema.sql shows the schema they add up to (`npm run schema:dump`).
--
-- Every company-owned table carries company_id, and every index that serves a list starts with
-- it, so a request never scans another company's rows.

-- Functions -------------------------------------------------------------------------------------
-- PL/pgSQL bodies are resolved when they first run, so they may come before the tables (a
-- function returning a table's rows comes after that table).

\ir ../functions/record_audit_events.sql
\ir ../functions/notify_credentials_changed.sql
\ir ../functions/run_totals_add.sql
\ir ../functions/runs_totals_follow.sql
\ir ../functions/run_totals_move_task.sql
\ir ../functions/tasks_move_run_totals.sql
\ir ../functions/tasks_counters_follow.sql
\ir ../functions/claim_run.sql

-- People and their credentials ---------------------------------------------------------------

CREATE TABLE users (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email               text NOT NULL,
  name                text NOT NULL,
  password_hash       text,                       -- null for accounts made by identity-provider sign-in
  avatar_url          varchar(500),
  preferences         jsonb NOT NULL DEFAULT '{}'::jsonb,
  organization        varchar(255),               -- `company` given at registration
  is_active           boolean NOT NULL DEFAULT true,
  failed_logins       integer NOT NULL DEFAULT 0,
  locked_until        timestamptz,
  password_changed_at timestamptz,                -- set by a completed password reset
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE refresh_tokens (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id     uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_hash  text NOT NULL UNIQUE,               -- SHA-256 of the token; the token is never stored
  active      boolean NOT NULL DEFAULT true,
  expires_at  timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX refresh_tokens_user ON refresh_tokens (user_id) WHERE active;

CREATE TABLE password_resets (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id       uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_hash    text NOT NULL UNIQUE,
  requested_ip  text,
  expires_at    timestamptz NOT NULL,
  used_at       timestamptz,
  voided_at     timestamptz,                      -- a newer request voids older unused links
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX password_resets_user ON password_resets (user_id, created_at DESC);

CREATE TABLE api_keys (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id     uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name        varchar(100) NOT NULL,
  prefix      varchar(13) NOT NULL,
  key_hash    text NOT NULL UNIQUE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  last_used   timestamptz,
  expires_at  timestamptz,
  revoked_at  timestamptz
);
CREATE INDEX api_keys_user ON api_keys (user_id, created_at DESC) WHERE revoked_at IS NULL;

-- Every change that can alter what a credential resolves to (a key revoked or expiring, a user
-- deactivated, renamed or resetting their password, a membership added, changed or removed)
-- notifies `credentials_changed`, from whichever process made it.
CREATE TRIGGER api_keys_credentials_changed
  AFTER UPDATE OF key_hash, user_id, created_at, expires_at, revoked_at OR DELETE OR TRUNCATE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION notify_credentials_changed();
CREATE TRIGGER users_credentials_changed
  AFTER UPDATE OF name, email, is_active, password_changed_at OR DELETE OR TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION notify_credentials_changed();

-- Companies ------------------------------------------------------------------------------------

CREATE TABLE companies (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name                  varchar(120) NOT NULL,
  mission               text,
  monthly_budget_cents  bigint NOT NULL DEFAULT 0 CHECK (monthly_budget_cents >= 0),
  task_prefix           varchar(8) NOT NULL DEFAULT 'SVC',
  last_task_number      integer NOT NULL DEFAULT 0,  -- allocated under this row's lock; never goes down
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE memberships (
  company_id  uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  user_id     uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role        text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id);
CREATE TRIGGER memberships_credentials_changed
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON memberships
  FOR EACH STATEMENT EXECUTE FUNCTION notify_credentials_changed();

CREATE TABLE agents (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  company_id            uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  name                  text NOT NULL,
  title                 text,
  role                  text,
  adapter               text,
  reports_to_id         uuid REFERENCES agents(id),
  heartbeat_cron        varchar(100),
  instructions          text,
  capabilities          jsonb,
  monthly_budget_cents  bigint NOT NULL DEFAULT 0 CHECK (monthly_budget_cents >= 0),
  status                text NOT NULL DEFAULT 'idle'
                        CHECK (status IN ('idle', 'running', 'paused', 'pending_approval', 'terminated', 'error')),
  avatar_seed           integer NOT NULL DEFAULT floor(random() * 1000000)::integer,
  last_activity         timestamptz,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX agents_company ON agents (company_id, created_at);
CREATE INDEX agents_reports_to ON agents (reports_to_id);
-- The scheduler's definition refresh reads the agents that have their own schedule.
CREATE INDEX agents_heartbeat_cron ON agents (company_id) WHERE heartbeat_cron IS NOT NULL;

-- The scheduler remembers the last heartbeat slot it fired for each agent, so that several
-- scheduler instances on one database wake an agent once per slot (see src/scheduler/fire.ts).
-- Kept apart from the agents table: it is scheduler bookkeeping, not part of the Agent record.
CREATE TABLE agent_heartbeat_slots (
  agent_id      uuid PRIMARY KEY REFERENCES agents(id) ON DELETE CASCADE,
  company_id    uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  last_slot_at  timestamptz NOT NULL
);

CREATE TABLE goals (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  company_id      uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  title           varchar(200) NOT NULL,
  description     text,
  status          text NOT NULL DEFAULT 'active' CHECK (status IN ('planned', 'active', 'achieved', 'abandoned')),
  parent_id       uuid REFERENCES goals(id) ON DELETE SET NULL,
  owner_agent_id  uuid REFERENCES agents(id),
  target_date     timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX goals_company ON goals (company_id, created_at);
CREATE INDEX goals_parent ON goals (parent_id);

CREATE TABLE projects (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  company_id            uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  name                  varchar(100) NOT NULL,
  description           text,
  repository            varchar(500),
  monthly_budget_cents  bigint NOT NULL DEFAULT 0 CHECK (monthly_budget_cents >= 0),
  status                text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'completed', 'archived')),
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX projects_company ON projects (company_id, created_at);

CREATE TABLE routines (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  company_id   uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  agent_id     uuid NOT NULL REFERENCES agents(id),
  project_id   uuid REFERENCES projects(id),
  title        varchar(200) NOT NULL,
  description  text,
  cron         varchar(100) NOT NULL,
  enabled      boolean NOT NULL DEFAULT true,
  last_run_at  timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX routines_company ON routines (company_id, created_at);
CREATE INDEX routines_enabled ON routines (enabled) WHERE enabled;

-- Tasks ----------------------------------------------------------------------------------------

CREATE TABLE tasks (
  id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  company_id           uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  number               integer NOT NULL,
  title                varchar(300) NOT NULL,
  description          text,
  status               text NOT NULL DEFAULT 'todo'
                       CHECK (status IN ('backlog', 'todo', 'in_progress', 'in_review', 'blocked', 'done', 'cancelled')),
  priority             text NOT NULL DEFAULT 'medium' CHECK (priority IN ('urgent', 'high', 'medium', 'low', 'none')),
  assignee_agent_id    uuid REFERENCES agents(id),
  project_id           uuid REFERENCES projects(id),
  goal_id              uuid REFERENCES goals(id) ON DELETE SET NULL,
  parent_id            uuid REFERENCES tasks(id) ON DELETE SET NULL,
  routine_id           uuid REFERENCES routines(id) ON DELETE SET NULL,
  due_date             timestamptz,
  sort_order           integer NOT NULL DEFAULT 0,
  created_by_agent_id  uuid REFERENCES agents(id),
  created_by_user_id   uuid REFERENCES users(id),
  started_at           timestamptz,
  completed_at         timestamptz,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now(),
  UNIQUE (company_id, number)
);
-- The list order is (sort_order, number DESC); each filter has an index that ends in that order.
CREATE INDEX tasks_list ON tasks (company_id, sort_order, number DESC);
CREATE INDEX tasks_status ON tasks (company_id, status, sort_order, number DESC);
-- Indexes on optional links hold only the rows that have the link: most tasks have no parent,
-- goal or project, and every lookup by a link (`project_id = $1`, a goal's tasks, the foreign
-- keys' ON DELETE SET NULL) names a value, which the planner knows is not null.
CREATE INDEX tasks_assignee ON tasks (assignee_agent_id, sort_order, number DESC) WHERE assignee_agent_id IS NOT NULL;
CREATE INDEX tasks_project ON tasks (project_id, sort_order, number DESC) WHERE project_id IS NOT NULL;
CREATE INDEX tasks_goal ON tasks (goal_id, status) WHERE goal_id IS NOT NULL;
CREATE INDEX tasks_parent ON tasks (parent_id, sort_order, number DESC) WHERE parent_id IS NOT NULL;
CREATE INDEX tasks_created_by ON tasks (created_by_user_id, updated_at DESC) WHERE created_by_user_id IS NOT NULL;
CREATE INDEX tasks_routine ON tasks (routine_id) WHERE routine_id IS NOT NULL;
-- An agent's `open_tasks` (assigned, neither done nor cancelled) is counted for every agent on
-- each agent list, get and org chart: an index-only scan of that agent's open tasks instead of a
-- visit to every task it was ever given.
CREATE INDEX tasks_open_assignee ON tasks (assignee_agent_id) WHERE status NOT IN ('done', 'cancelled');
-- The dashboard's "for you" counts the caller's open tasks in a company from this index alone.
CREATE INDEX tasks_open_creator ON tasks (created_by_user_id, company_id, status) WHERE status NOT IN ('done', 'cancelled');

-- The task list's `q` filter is a case-insensitive substring match (ILIKE '%...%') on title and
-- description. Without help it reads every task of the company; trigram indexes let PostgreSQL
-- find the matching rows directly. pg_trgm is a trusted extension on PostgreSQL 13+, so the
-- database owner may create it. Where it is not available (the embedded database ships it only
-- on request) or not permitted, the indexes are skipped: the filter gives the same answers,
-- only without the index.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') THEN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    CREATE INDEX IF NOT EXISTS tasks_title_trgm ON tasks USING gin (title gin_trgm_ops);
    CREATE INDEX IF NOT EXISTS tasks_description_trgm ON tasks USING gin (description gin_trgm_ops);
  END IF;
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'pg_trgm not permitted; task search runs without trigram indexes';
END
$$;

-- Runs -----------------------------------------------------------------------------------------

CREATE TABLE runs (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  company_id   uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  agent_id     uuid NOT NULL REFERENCES agents(id),
  task_id      uuid REFERENCES tasks(id) ON DELETE SET NULL,
  routine_id   uuid REFERENCES routines(id) ON DELETE SET NULL,
  runner_id    varchar(100),
  status       text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  trigger      text NOT NULL CHECK (trigger IN ('manual', 'assignment', 'routine', 'heartbeat')),
  tokens_in    bigint NOT NULL DEFAULT 0 CHECK (tokens_in >= 0),
  tokens_out   bigint NOT NULL DEFAULT 0 CHECK (tokens_out >= 0),
  cost_cents   bigint NOT NULL DEFAULT 0 CHECK (cost_cents >= 0),
  summary      text,
  error        text,
  transcript   jsonb NOT NULL DEFAULT '[]'::jsonb,
  heartbeat_at timestamptz,
  started_at   timestamptz,
  ended_at     timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
-- Every claim leaves a dead entry at the head of runs_claim, where the next claim starts to
-- read; until vacuum removes them each claim steps over all of them. Vacuum the runs table
-- after 2% of its rows changed rather than the default 20%.
ALTER TABLE runs SET (autovacuum_vacuum_scale_factor = 0.02);
\ir ../functions/queue_run.sql
-- At most one running run per agent, whatever races happen between runners.
CREATE UNIQUE INDEX runs_one_running_per_agent ON runs (agent_id) WHERE status = 'running';
-- At most one identical queued run (agent, task, routine); queueing again reuses it.
CREATE UNIQUE INDEX runs_one_identical_queued ON runs (
  agent_id,
  coalesce(task_id, '00000000-0000-0000-0000-000000000000'::uuid),
  coalesce(routine_id, '00000000-0000-0000-0000-000000000000'::uuid)
) WHERE status = 'queued';
-- The claim takes the oldest queued run by (created_at, id), the whole order in the index: with
-- created_at alone, runs created in the same instant (one statement queueing many) were all read
-- and sorted on every claim (10 ms for 10,000 such runs, against 0.08 ms).
CREATE INDEX runs_claim ON runs (company_id, created_at, id) WHERE status = 'queued';
CREATE INDEX runs_running ON runs (company_id, heartbeat_at) WHERE status = 'running';
CREATE INDEX runs_list ON runs (company_id, created_at DESC);
CREATE INDEX runs_agent ON runs (agent_id, created_at DESC);
CREATE INDEX runs_task ON runs (task_id, created_at DESC) WHERE task_id IS NOT NULL;
CREATE INDEX runs_status ON runs (company_id, status, created_at DESC);
CREATE INDEX runs_ended ON runs (company_id, ended_at) INCLUDE (agent_id, status, cost_cents) WHERE ended_at IS NOT NULL;

CREATE TABLE task_comments (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  company_id       uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  task_id          uuid NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  kind             text NOT NULL DEFAULT 'comment' CHECK (kind IN ('comment', 'question', 'plan', 'system')),
  body             text NOT NULL,
  author_user_id   uuid REFERENCES users(id),
  author_agent_id  uuid REFERENCES agents(id),
  run_id           uuid REFERENCES runs(id) ON DELETE SET NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX task_comments_task ON task_comments (task_id, created_at);

CREATE TABLE approvals (
  id                     uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  company_id             uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  type                   text NOT NULL CHECK (type IN ('hire_agent', 'budget_override', 'action')),
  status                 text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
  agent_id               uuid REFERENCES agents(id),
  payload                jsonb NOT NULL DEFAULT '{}'::jsonb,
  requested_by_user_id   uuid REFERENCES users(id),
  requested_by_agent_id  uuid REFERENCES agents(id),
  decided_by_user_id     uuid REFERENCES users(id),
  decided_at             timestamptz,
  decision_note          text,
  new_budget_cents       bigint CHECK (new_budget_cents >= 0),
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX approvals_company ON approvals (company_id, created_at DESC);
CREATE INDEX approvals_pending ON approvals (company_id, created_at DESC) WHERE status = 'pending';
-- Never two pending budget overrides for one agent.
CREATE UNIQUE INDEX approvals_one_pending_override ON approvals (agent_id)
  WHERE type = 'budget_override' AND status = 'pending';

-- The audit trail. created_at is unique per company (see domain/audit/record.ts), so the
-- activity list can page by `before = created_at` without skipping or repeating rows.
CREATE TABLE audit_events (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  company_id      uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  actor_type      text NOT NULL CHECK (actor_type IN ('user', 'agent', 'system')),
  actor_name      text NOT NULL,
  actor_user_id   uuid,
  actor_agent_id  uuid,
  verb            text NOT NULL,
  entity_type     text NOT NULL,
  entity_id       uuid,
  label           text,
  changes         jsonb NOT NULL DEFAULT '{}'::jsonb,
  run_id          uuid,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE UNIQUE INDEX audit_events_page ON audit_events (company_id, created_at DESC);

-- Totals ---------------------------------------------------------------------------------------
-- Kept by triggers in the same transaction as every write, so the dashboard and costs read a few
-- rows per day (and agent) instead of adding up the runs and tasks behind them. The triggers
-- that add to them are deferred to the commit: a transaction locks its totals rows after every
-- other row it touches, so waiting for one can never close a cycle with the task, run and agent
-- rows that claims, reports and task updates lock in their own orders (a report holding a run
-- and waiting for its agent, and a wake holding the agent and waiting for the same totals row,
-- would otherwise deadlock). Rows are also held for the shortest time.

-- Runs per UTC day of creation, agent and project (the project the run's task is in now).
CREATE TABLE run_totals (
  company_id      uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  day             date NOT NULL,
  agent_id        uuid NOT NULL,
  project_id      uuid,
  runs            integer NOT NULL DEFAULT 0,
  runs_succeeded  integer NOT NULL DEFAULT 0,
  runs_failed     integer NOT NULL DEFAULT 0,
  cost_cents      bigint NOT NULL DEFAULT 0,
  tokens_in       bigint NOT NULL DEFAULT 0,
  tokens_out      bigint NOT NULL DEFAULT 0,
  CONSTRAINT run_totals_key UNIQUE NULLS NOT DISTINCT (company_id, day, agent_id, project_id)
);
-- An agent's month-to-date spend (agent records, budget checks) adds up its rows here.
CREATE INDEX run_totals_agent ON run_totals (agent_id, day);

-- Runs are never deleted (SPEC.md); a company's go with it, and so do its totals.
CREATE CONSTRAINT TRIGGER runs_totalled AFTER INSERT ON runs DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION runs_totals_follow();
-- A claim or a heartbeat changes nothing that is totalled, so it does not even call the function.
CREATE CONSTRAINT TRIGGER runs_retotalled AFTER UPDATE OF status, cost_cents, tokens_in, tokens_out, agent_id, created_at ON runs
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN ((OLD.status = 'succeeded') <> (NEW.status = 'succeeded')
                  OR (OLD.status = 'failed') <> (NEW.status = 'failed')
                  OR OLD.cost_cents <> NEW.cost_cents OR OLD.tokens_in <> NEW.tokens_in OR OLD.tokens_out <> NEW.tokens_out
                  OR OLD.agent_id <> NEW.agent_id OR OLD.created_at <> NEW.created_at)
  EXECUTE FUNCTION runs_totals_follow();

-- A task moved to another project takes the totals of its runs along. These run at once, not at
-- commit: the runs must still name the task, and no request moves a task and changes its runs in
-- one transaction.
CREATE TRIGGER tasks_project_moves_run_totals AFTER UPDATE OF project_id ON tasks
  FOR EACH ROW WHEN (OLD.project_id IS DISTINCT FROM NEW.project_id) EXECUTE FUNCTION tasks_move_run_totals();
-- Before the delete: afterwards the runs no longer name the task.
CREATE TRIGGER tasks_delete_moves_run_totals BEFORE DELETE ON tasks
  FOR EACH ROW WHEN (OLD.project_id IS NOT NULL) EXECUTE FUNCTION tasks_move_run_totals();

-- Tasks per company, status and priority, split into 16 slots: with one row per company, status
-- and priority, every task moving between two statuses of a company locked the same two rows
-- until its transaction committed, so a company's claims (each moves a task to in_progress) ran
-- one at a time (2.5 ms of lock waiting per claim with 8 runners). Each database connection
-- counts into the slot of its backend pid; transactions in flight at the same moment are on
-- different connections, so they rarely share a row. A slot may go negative (a task counted in
-- one slot and moved by another connection); the sum over the slots is the count.
CREATE TABLE task_counts (
  company_id  uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  status      text NOT NULL,
  priority    text NOT NULL,
  n           integer NOT NULL DEFAULT 0,
  slot        smallint NOT NULL DEFAULT 0,
  PRIMARY KEY (company_id, status, priority, slot)
);

-- Tasks created and completed per UTC day, for the dashboard's series.
CREATE TABLE task_days (
  company_id  uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  day         date NOT NULL,
  created     integer NOT NULL DEFAULT 0,
  completed   integer NOT NULL DEFAULT 0,
  PRIMARY KEY (company_id, day)
);

CREATE CONSTRAINT TRIGGER tasks_counted AFTER INSERT OR DELETE ON tasks DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION tasks_counters_follow();
CREATE CONSTRAINT TRIGGER tasks_recounted AFTER UPDATE OF status, priority, created_at, completed_at ON tasks
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.priority IS DISTINCT FROM NEW.priority
                  OR OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.completed_at IS DISTINCT FROM NEW.completed_at)
  EXECUTE FUNCTION tasks_counters_follow();
