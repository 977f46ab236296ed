-- The whole data model. Every company-owned table carries company_id, and every index that
-- serves a list starts with it, so a request never scans another company's rows.

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
CREATE INDEX tasks_assignee ON tasks (assignee_agent_id, sort_order, number DESC);
CREATE INDEX tasks_project ON tasks (project_id, sort_order, number DESC);
CREATE INDEX tasks_goal ON tasks (goal_id, status);
CREATE INDEX tasks_parent ON tasks (parent_id, sort_order, number DESC);
CREATE INDEX tasks_created_by ON tasks (created_by_user_id, updated_at DESC);
CREATE INDEX tasks_created_day ON tasks (company_id, created_at);
CREATE INDEX tasks_completed_day ON tasks (company_id, completed_at) WHERE completed_at IS NOT NULL;
CREATE INDEX tasks_routine ON tasks (routine_id) WHERE routine_id IS NOT NULL;

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
-- At most one running run per agent, whatever races happen between runners.
CREATE UNIQUE INDEX runs_one_running_per_agent ON runs (agent_id) WHERE status = 'running';
-- At most one identical queued run (agent, task, routine); queueing again reuses it.
CREATE UNIQUE INDEX runs_one_identical_queued ON runs (
  agent_id,
  coalesce(task_id, '00000000-0000-0000-0000-000000000000'::uuid),
  coalesce(routine_id, '00000000-0000-0000-0000-000000000000'::uuid)
) WHERE status = 'queued';
CREATE INDEX runs_claim ON runs (company_id, created_at) WHERE status = 'queued';
CREATE INDEX runs_running ON runs (company_id, heartbeat_at) WHERE status = 'running';
CREATE INDEX runs_list ON runs (company_id, created_at DESC);
CREATE INDEX runs_agent ON runs (agent_id, created_at DESC);
CREATE INDEX runs_task ON runs (task_id, created_at DESC);
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
