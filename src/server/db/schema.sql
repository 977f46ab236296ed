-- The schema of a freshly migrated database, as PostgreSQL's catalogs describe it: what the
-- migrations in src/server/db/migrations add up to. Generated: do not edit. After adding a
-- migration, run `npm run schema:dump` (test/foundation/schema.test.ts fails until then).

CREATE EXTENSION pg_trgm;

CREATE TABLE agent_heartbeat_slots (
  agent_id uuid NOT NULL,
  company_id uuid NOT NULL,
  last_slot_at timestamp with time zone NOT NULL
);
ALTER TABLE agent_heartbeat_slots ADD CONSTRAINT agent_heartbeat_slots_agent_id_fkey FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE;
ALTER TABLE agent_heartbeat_slots ADD CONSTRAINT agent_heartbeat_slots_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE CASCADE;
ALTER TABLE agent_heartbeat_slots ADD CONSTRAINT agent_heartbeat_slots_pkey PRIMARY KEY (agent_id);

CREATE TABLE agents (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  company_id uuid NOT NULL,
  name text NOT NULL,
  title text,
  role text,
  adapter text,
  reports_to_id uuid,
  heartbeat_cron character varying(100),
  instructions text,
  capabilities jsonb,
  monthly_budget_cents bigint NOT NULL DEFAULT 0,
  status text NOT NULL DEFAULT 'idle'::text,
  avatar_seed integer NOT NULL DEFAULT (floor((random() * (1000000)::double precision)))::integer,
  last_activity timestamp with time zone,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  updated_at timestamp with time zone NOT NULL DEFAULT now(),
  adapter_config jsonb NOT NULL DEFAULT '{}'::jsonb,
  max_run_cost_cents integer NOT NULL DEFAULT 0,
  max_runs_per_hour integer NOT NULL DEFAULT 0,
  pause_on_repeat boolean NOT NULL DEFAULT false,
  heartbeat_skip_idle boolean NOT NULL DEFAULT false,
  breaker_reset_at timestamp with time zone,
  skills uuid[] NOT NULL DEFAULT '{}'::uuid[]
);
ALTER TABLE agents ADD CONSTRAINT agents_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE CASCADE;
ALTER TABLE agents ADD CONSTRAINT agents_max_run_cost_cents_check CHECK ((max_run_cost_cents >= 0));
ALTER TABLE agents ADD CONSTRAINT agents_max_runs_per_hour_check CHECK ((max_runs_per_hour >= 0));
ALTER TABLE agents ADD CONSTRAINT agents_monthly_budget_cents_check CHECK ((monthly_budget_cents >= 0));
ALTER TABLE agents ADD CONSTRAINT agents_pkey PRIMARY KEY (id);
ALTER TABLE agents ADD CONSTRAINT agents_reports_to_id_fkey FOREIGN KEY (reports_to_id) REFERENCES agents(id);
ALTER TABLE agents ADD CONSTRAINT agents_status_check CHECK ((status = ANY (ARRAY['idle'::text, 'running'::text, 'paused'::text, 'pending_approval'::text, 'terminated'::text, 'error'::text])));
CREATE INDEX agents_company ON public.agents USING btree (company_id, created_at);
CREATE INDEX agents_heartbeat_cron ON public.agents USING btree (company_id) WHERE (heartbeat_cron IS NOT NULL);
CREATE INDEX agents_reports_to ON public.agents USING btree (reports_to_id);
CREATE INDEX agents_run_limit ON public.agents USING btree (company_id) WHERE (max_runs_per_hour > 0);

CREATE TABLE api_keys (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL,
  name character varying(100) NOT NULL,
  prefix character varying(13) NOT NULL,
  key_hash text NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  last_used timestamp with time zone,
  expires_at timestamp with time zone,
  revoked_at timestamp with time zone,
  company_id uuid
);
ALTER TABLE api_keys ADD CONSTRAINT api_keys_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE CASCADE;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash);
ALTER TABLE api_keys ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);
ALTER TABLE api_keys ADD CONSTRAINT api_keys_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE;
CREATE INDEX api_keys_user ON public.api_keys USING btree (user_id, created_at DESC) WHERE (revoked_at IS NULL);
CREATE TRIGGER api_keys_credentials_changed AFTER DELETE OR UPDATE OF key_hash, user_id, created_at, expires_at, revoked_at, company_id OR TRUNCATE ON public.api_keys FOR EACH STATEMENT EXECUTE FUNCTION notify_channel('credentials_changed');

CREATE TABLE approvals (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  company_id uuid NOT NULL,
  type text NOT NULL,
  status text NOT NULL DEFAULT 'pending'::text,
  agent_id uuid,
  payload jsonb NOT NULL DEFAULT '{}'::jsonb,
  requested_by_user_id uuid,
  requested_by_agent_id uuid,
  decided_by_user_id uuid,
  decided_at timestamp with time zone,
  decision_note text,
  new_budget_cents bigint,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  updated_at timestamp with time zone NOT NULL DEFAULT now()
);
ALTER TABLE approvals ADD CONSTRAINT approvals_agent_id_fkey FOREIGN KEY (agent_id) REFERENCES agents(id);
ALTER TABLE approvals ADD CONSTRAINT approvals_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE CASCADE;
ALTER TABLE approvals ADD CONSTRAINT approvals_decided_by_user_id_fkey FOREIGN KEY (decided_by_user_id) REFERENCES users(id);
ALTER TABLE approvals ADD CONSTRAINT approvals_new_budget_cents_check CHECK ((new_budget_cents >= 0));
ALTER TABLE approvals ADD CONSTRAINT approvals_pkey PRIMARY KEY (id);
ALTER TABLE approvals ADD CONSTRAINT approvals_requested_by_agent_id_fkey FOREIGN KEY (requested_by_agent_id) REFERENCES agents(id);
ALTER TABLE approvals ADD CONSTRAINT approvals_requested_by_user_id_fkey FOREIGN KEY (requested_by_user_id) REFERENCES users(id);
ALTER TABLE approvals ADD CONSTRAINT approvals_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'approved'::text, 'rejected'::text])));
ALTER TABLE approvals ADD CONSTRAINT approvals_type_check CHECK ((type = ANY (ARRAY['hire_agent'::text, 'budget_override'::text, 'action'::text])));
CREATE INDEX approvals_company ON public.approvals USING btree (company_id, created_at DESC);
CREATE UNIQUE INDEX approvals_one_pending_override ON public.approvals USING btree (agent_id) WHERE ((type = 'budget_override'::text) AND (status = 'pending'::text));
CREATE INDEX approvals_pending ON public.approvals USING btree (company_id, created_at DESC) WHERE (status = 'pending'::text);

CREATE TABLE audit_events (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  company_id uuid NOT NULL,
  actor_type text NOT NULL,
  actor_name text NOT NULL,
  actor_user_id uuid,
  actor_agent_id uuid,
  verb text NOT NULL,
  entity_type text NOT NULL,
  entity_id uuid,
  label text,
  changes jsonb NOT NULL DEFAULT '{}'::jsonb,
  run_id uuid,
  created_at timestamp with time zone NOT NULL DEFAULT clock_timestamp()
);
ALTER TABLE audit_events ADD CONSTRAINT audit_events_actor_type_check CHECK ((actor_type = ANY (ARRAY['user'::text, 'agent'::text, 'system'::text])));
ALTER TABLE audit_events ADD CONSTRAINT audit_events_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE CASCADE;
ALTER TABLE audit_events ADD CONSTRAINT audit_events_pkey PRIMARY KEY (id);
CREATE UNIQUE INDEX audit_events_page ON public.audit_events USING btree (company_id, created_at DESC);
CREATE INDEX audit_events_record ON public.audit_events USING btree (company_id, entity_type, entity_id, created_at DESC);

CREATE TABLE companies (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  name character varying(120) NOT NULL,
  mission text,
  monthly_budget_cents bigint NOT NULL DEFAULT 0,
  task_prefix character varying(8) NOT NULL DEFAULT 'SVC'::character varying,
  last_task_number integer NOT NULL DEFAULT 0,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  updated_at timestamp with time zone NOT NULL DEFAULT now()
);
ALTER TABLE companies ADD CONSTRAINT companies_monthly_budget_cents_check CHECK ((monthly_budget_cents >= 0));
ALTER TABLE companies ADD CONSTRAINT companies_pkey PRIMARY KEY (id);

CREATE TABLE document_versions (
  document_id uuid NOT NULL,
  version integer NOT NULL,
  title character varying(200) NOT NULL,
  body text NOT NULL,
  tags text[] NOT NULL,
  user_id uuid,
  agent_id uuid,
  run_id uuid,
  created_at timestamp with time zone NOT NULL DEFAULT now()
);
ALTER TABLE document_versions ADD CONSTRAINT document_versions_agent_id_fkey FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE SET NULL;
ALTER TABLE document_versions ADD CONSTRAINT document_versions_document_id_fkey FOREIGN KEY (document_id) REFERENCES documents(id) ON DELETE CASCADE;
ALTER TABLE document_versions ADD CONSTRAINT document_versions_pkey PRIMARY KEY (document_id, version);
ALTER TABLE document_versions ADD CONSTRAINT document_versions_run_id_fkey FOREIGN KEY (run_id) REFERENCES runs(id) ON DELETE SET NULL;
ALTER TABLE document_versions ADD CONSTRAINT document_versions_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE SET NULL;

CREATE TABLE documents (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  company_id uuid NOT NULL,
  title character varying(200) NOT NULL,
  body text NOT NULL DEFAULT ''::text,
  tags text[] NOT NULL DEFAULT '{}'::text[],
  project_id uuid,
  agent_id uuid,
  pinned boolean NOT NULL DEFAULT false,
  agent_editable boolean NOT NULL DEFAULT false,
  version integer NOT NULL DEFAULT 1,
  created_by_user_id uuid,
  created_by_agent_id uuid,
  updated_by_user_id uuid,
  updated_by_agent_id uuid,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  updated_at timestamp with time zone NOT NULL DEFAULT now(),
  search tsvector DEFAULT (setweight(to_tsvector('english'::regconfig, (title)::text), 'A'::"char") || setweight(to_tsvector('english'::regconfig, body), 'B'::"char"))
);
ALTER TABLE documents ADD CONSTRAINT documents_agent_id_fkey FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE;
ALTER TABLE documents ADD CONSTRAINT documents_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE CASCADE;
ALTER TABLE documents ADD CONSTRAINT documents_created_by_agent_id_fkey FOREIGN KEY (created_by_agent_id) REFERENCES agents(id) ON DELETE SET NULL;
ALTER TABLE documents ADD CONSTRAINT documents_created_by_user_id_fkey FOREIGN KEY (created_by_user_id) REFERENCES users(id) ON DELETE SET NULL;
ALTER TABLE documents ADD CONSTRAINT documents_pkey PRIMARY KEY (id);
ALTER TABLE documents ADD CONSTRAINT documents_project_id_fkey FOREIGN KEY (project_id) REFERENCES projects(id) ON DELETE SET NULL;
ALTER TABLE documents ADD CONSTRAINT documents_updated_by_agent_id_fkey FOREIGN KEY (updated_by_agent_id) REFERENCES agents(id) ON DELETE SET NULL;
ALTER TABLE documents ADD CONSTRAINT documents_updated_by_user_id_fkey FOREIGN KEY (updated_by_user_id) REFERENCES users(id) ON DELETE SET NULL;
CREATE INDEX documents_company ON public.documents USING btree (company_id, updated_at DESC, id);
CREATE UNIQUE INDEX documents_memory ON public.documents USING btree (agent_id) WHERE (agent_id IS NOT NULL);
CREATE INDEX documents_pinned ON public.documents USING btree (company_id) WHERE pinned;
CREATE INDEX documents_search ON public.documents USING gin (search);
CREATE INDEX documents_tags ON public.documents USING gin (tags);

CREATE TABLE email_verifications (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL,
  token_hash text NOT NULL,
  expires_at timestamp with time zone NOT NULL,
  used_at timestamp with time zone,
  created_at timestamp with time zone NOT NULL DEFAULT now()
);
ALTER TABLE email_verifications ADD CONSTRAINT email_verifications_pkey PRIMARY KEY (id);
ALTER TABLE email_verifications ADD CONSTRAINT email_verifications_token_hash_key UNIQUE (token_hash);
ALTER TABLE email_verifications ADD CONSTRAINT email_verifications_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE;
CREATE INDEX email_verifications_user ON public.email_verifications USING btree (user_id);

CREATE TABLE goal_task_counts (
  goal_id uuid NOT NULL,
  slot smallint NOT NULL DEFAULT 0,
  total integer NOT NULL DEFAULT 0,
  done integer NOT NULL DEFAULT 0
);
ALTER TABLE goal_task_counts ADD CONSTRAINT goal_task_counts_goal_id_fkey FOREIGN KEY (goal_id) REFERENCES goals(id) ON DELETE CASCADE;
ALTER TABLE goal_task_counts ADD CONSTRAINT goal_task_counts_pkey PRIMARY KEY (goal_id, slot);

CREATE TABLE goals (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  company_id uuid NOT NULL,
  title character varying(200) NOT NULL,
  description text,
  status text NOT NULL DEFAULT 'active'::text,
  parent_id uuid,
  owner_agent_id uuid,
  target_date timestamp with time zone,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  updated_at timestamp with time zone NOT NULL DEFAULT now()
);
ALTER TABLE goals ADD CONSTRAINT goals_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE CASCADE;
ALTER TABLE goals ADD CONSTRAINT goals_owner_agent_id_fkey FOREIGN KEY (owner_agent_id) REFERENCES agents(id);
ALTER TABLE goals ADD CONSTRAINT goals_parent_id_fkey FOREIGN KEY (parent_id) REFERENCES goals(id) ON DELETE SET NULL;
ALTER TABLE goals ADD CONSTRAINT goals_pkey PRIMARY KEY (id);
ALTER TABLE goals ADD CONSTRAINT goals_status_check CHECK ((status = ANY (ARRAY['planned'::text, 'active'::text, 'achieved'::text, 'abandoned'::text])));
CREATE INDEX goals_company ON public.goals USING btree (company_id, created_at);
CREATE INDEX goals_parent ON public.goals USING btree (parent_id);

CREATE TABLE invitations (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  company_id uuid NOT NULL,
  email text NOT NULL,
  role text NOT NULL,
  token_hash text NOT NULL,
  invited_by_user_id uuid,
  expires_at timestamp with time zone NOT NULL,
  accepted_at timestamp with time zone,
  accepted_by_user_id uuid,
  revoked_at timestamp with time zone,
  created_at timestamp with time zone NOT NULL DEFAULT now()
);
ALTER TABLE invitations ADD CONSTRAINT invitations_accepted_by_user_id_fkey FOREIGN KEY (accepted_by_user_id) REFERENCES users(id) ON DELETE SET NULL;
ALTER TABLE invitations ADD CONSTRAINT invitations_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE CASCADE;
ALTER TABLE invitations ADD CONSTRAINT invitations_invited_by_user_id_fkey FOREIGN KEY (invited_by_user_id) REFERENCES users(id) ON DELETE SET NULL;
ALTER TABLE invitations ADD CONSTRAINT invitations_pkey PRIMARY KEY (id);
ALTER TABLE invitations ADD CONSTRAINT invitations_role_check CHECK ((role = ANY (ARRAY['admin'::text, 'member'::text])));
ALTER TABLE invitations ADD CONSTRAINT invitations_token_hash_key UNIQUE (token_hash);
CREATE UNIQUE INDEX invitations_one_pending ON public.invitations USING btree (company_id, email) WHERE ((accepted_at IS NULL) AND (revoked_at IS NULL));

CREATE TABLE memberships (
  company_id uuid NOT NULL,
  user_id uuid NOT NULL,
  role text NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT now()
);
ALTER TABLE memberships ADD CONSTRAINT memberships_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE CASCADE;
ALTER TABLE memberships ADD CONSTRAINT memberships_pkey PRIMARY KEY (company_id, user_id);
ALTER TABLE memberships ADD CONSTRAINT memberships_role_check CHECK ((role = ANY (ARRAY['owner'::text, 'admin'::text, 'member'::text])));
ALTER TABLE memberships ADD CONSTRAINT memberships_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE;
CREATE INDEX memberships_user ON public.memberships USING btree (user_id);
CREATE TRIGGER memberships_credentials_changed AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.memberships FOR EACH STATEMENT EXECUTE FUNCTION notify_channel('credentials_changed');

CREATE TABLE password_resets (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL,
  token_hash text NOT NULL,
  requested_ip text,
  expires_at timestamp with time zone NOT NULL,
  used_at timestamp with time zone,
  voided_at timestamp with time zone,
  created_at timestamp with time zone NOT NULL DEFAULT now()
);
ALTER TABLE password_resets ADD CONSTRAINT password_resets_pkey PRIMARY KEY (id);
ALTER TABLE password_resets ADD CONSTRAINT password_resets_token_hash_key UNIQUE (token_hash);
ALTER TABLE password_resets ADD CONSTRAINT password_resets_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE;
CREATE INDEX password_resets_user ON public.password_resets USING btree (user_id, created_at DESC);

CREATE TABLE projects (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  company_id uuid NOT NULL,
  name character varying(100) NOT NULL,
  description text,
  repository character varying(500),
  monthly_budget_cents bigint NOT NULL DEFAULT 0,
  status text NOT NULL DEFAULT 'active'::text,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  updated_at timestamp with time zone NOT NULL DEFAULT now(),
  default_branch character varying(200) NOT NULL DEFAULT 'main'::character varying,
  checks jsonb NOT NULL DEFAULT '[]'::jsonb,
  require_checks boolean NOT NULL DEFAULT false,
  merge_on_approve boolean NOT NULL DEFAULT false,
  reviewer_agent_id uuid
);
ALTER TABLE projects ADD CONSTRAINT projects_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE CASCADE;
ALTER TABLE projects ADD CONSTRAINT projects_monthly_budget_cents_check CHECK ((monthly_budget_cents >= 0));
ALTER TABLE projects ADD CONSTRAINT projects_pkey PRIMARY KEY (id);
ALTER TABLE projects ADD CONSTRAINT projects_reviewer_agent_id_fkey FOREIGN KEY (reviewer_agent_id) REFERENCES agents(id) ON DELETE SET NULL;
ALTER TABLE projects ADD CONSTRAINT projects_status_check CHECK ((status = ANY (ARRAY['active'::text, 'paused'::text, 'completed'::text, 'archived'::text])));
CREATE INDEX projects_company ON public.projects USING btree (company_id, created_at);

CREATE TABLE refresh_tokens (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL,
  token_hash text NOT NULL,
  active boolean NOT NULL DEFAULT true,
  expires_at timestamp with time zone NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT now()
);
ALTER TABLE refresh_tokens ADD CONSTRAINT refresh_tokens_pkey PRIMARY KEY (id);
ALTER TABLE refresh_tokens ADD CONSTRAINT refresh_tokens_token_hash_key UNIQUE (token_hash);
ALTER TABLE refresh_tokens ADD CONSTRAINT refresh_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE;
CREATE INDEX refresh_tokens_user ON public.refresh_tokens USING btree (user_id) WHERE active;

CREATE TABLE routines (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  company_id uuid NOT NULL,
  agent_id uuid NOT NULL,
  project_id uuid,
  title character varying(200) NOT NULL,
  description text,
  cron character varying(100) NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  last_run_at timestamp with time zone,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  updated_at timestamp with time zone NOT NULL DEFAULT now()
);
ALTER TABLE routines ADD CONSTRAINT routines_agent_id_fkey FOREIGN KEY (agent_id) REFERENCES agents(id);
ALTER TABLE routines ADD CONSTRAINT routines_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE CASCADE;
ALTER TABLE routines ADD CONSTRAINT routines_pkey PRIMARY KEY (id);
ALTER TABLE routines ADD CONSTRAINT routines_project_id_fkey FOREIGN KEY (project_id) REFERENCES projects(id);
CREATE INDEX routines_company ON public.routines USING btree (company_id, created_at);
CREATE INDEX routines_enabled ON public.routines USING btree (enabled) WHERE enabled;

CREATE TABLE run_patches (
  run_id uuid NOT NULL,
  company_id uuid NOT NULL,
  patch text NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT now()
);
ALTER TABLE run_patches ADD CONSTRAINT run_patches_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE CASCADE;
ALTER TABLE run_patches ADD CONSTRAINT run_patches_pkey PRIMARY KEY (run_id);
ALTER TABLE run_patches ADD CONSTRAINT run_patches_run_id_fkey FOREIGN KEY (run_id) REFERENCES runs(id) ON DELETE CASCADE;
CREATE INDEX run_patches_company_id_idx ON public.run_patches USING btree (company_id);

CREATE TABLE run_totals (
  company_id uuid NOT NULL,
  day date NOT NULL,
  agent_id uuid NOT NULL,
  project_id uuid,
  runs integer NOT NULL DEFAULT 0,
  runs_succeeded integer NOT NULL DEFAULT 0,
  runs_failed integer NOT NULL DEFAULT 0,
  cost_cents bigint NOT NULL DEFAULT 0,
  tokens_in bigint NOT NULL DEFAULT 0,
  tokens_out bigint NOT NULL DEFAULT 0,
  plan_cost_cents bigint NOT NULL DEFAULT 0,
  slot smallint NOT NULL DEFAULT 0
);
ALTER TABLE run_totals ADD CONSTRAINT run_totals_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE CASCADE;
ALTER TABLE run_totals ADD CONSTRAINT run_totals_key UNIQUE NULLS NOT DISTINCT (company_id, day, agent_id, project_id, slot);
CREATE INDEX run_totals_agent ON public.run_totals USING btree (agent_id, day);
CREATE INDEX run_totals_unfolded ON public.run_totals USING btree (day) WHERE (slot >= 0);

CREATE TABLE run_transcript_entries (
  run_id uuid NOT NULL,
  seq integer NOT NULL,
  entry jsonb NOT NULL
);
ALTER TABLE run_transcript_entries ADD CONSTRAINT run_transcript_entries_pkey PRIMARY KEY (run_id, seq);
ALTER TABLE run_transcript_entries ADD CONSTRAINT run_transcript_entries_run_id_fkey FOREIGN KEY (run_id) REFERENCES runs(id) ON DELETE CASCADE;
ALTER TABLE run_transcript_entries ADD CONSTRAINT run_transcript_entries_seq_check CHECK ((seq > 0));

CREATE TABLE runners (
  company_id uuid NOT NULL,
  runner_id character varying(100) NOT NULL,
  adapters jsonb,
  versions jsonb NOT NULL DEFAULT '{}'::jsonb,
  first_seen_at timestamp with time zone NOT NULL DEFAULT now(),
  last_seen_at timestamp with time zone NOT NULL DEFAULT now(),
  stopped_at timestamp with time zone,
  cooldowns jsonb NOT NULL DEFAULT '[]'::jsonb
);
ALTER TABLE runners ADD CONSTRAINT runners_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE CASCADE;
ALTER TABLE runners ADD CONSTRAINT runners_pkey PRIMARY KEY (company_id, runner_id);
CREATE INDEX runners_recent ON public.runners USING btree (company_id, last_seen_at DESC);

CREATE TABLE runs (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  company_id uuid NOT NULL,
  agent_id uuid NOT NULL,
  task_id uuid,
  routine_id uuid,
  runner_id character varying(100),
  status text NOT NULL DEFAULT 'queued'::text,
  trigger text NOT NULL,
  tokens_in bigint NOT NULL DEFAULT 0,
  tokens_out bigint NOT NULL DEFAULT 0,
  cost_cents bigint NOT NULL DEFAULT 0,
  summary text,
  error text,
  heartbeat_at timestamp with time zone,
  started_at timestamp with time zone,
  ended_at timestamp with time zone,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  updated_at timestamp with time zone NOT NULL DEFAULT now(),
  session_id text,
  transcript_trimmed_at timestamp with time zone,
  task_status_before text,
  changes jsonb,
  checks jsonb NOT NULL DEFAULT '[]'::jsonb,
  purpose text NOT NULL DEFAULT 'work'::text,
  fresh_session boolean NOT NULL DEFAULT false,
  not_before timestamp with time zone,
  billing text NOT NULL DEFAULT 'api'::text,
  transcript_count integer NOT NULL DEFAULT 0,
  redo_of uuid
);
ALTER TABLE runs ADD CONSTRAINT runs_agent_id_fkey FOREIGN KEY (agent_id) REFERENCES agents(id);
ALTER TABLE runs ADD CONSTRAINT runs_billing_check CHECK ((billing = ANY (ARRAY['api'::text, 'plan'::text])));
ALTER TABLE runs ADD CONSTRAINT runs_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE CASCADE;
ALTER TABLE runs ADD CONSTRAINT runs_cost_cents_check CHECK ((cost_cents >= 0));
ALTER TABLE runs ADD CONSTRAINT runs_pkey PRIMARY KEY (id);
ALTER TABLE runs ADD CONSTRAINT runs_purpose_check CHECK ((purpose = ANY (ARRAY['work'::text, 'merge'::text])));
ALTER TABLE runs ADD CONSTRAINT runs_retotalled TRIGGER DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE runs ADD CONSTRAINT runs_routine_id_fkey FOREIGN KEY (routine_id) REFERENCES routines(id) ON DELETE SET NULL;
ALTER TABLE runs ADD CONSTRAINT runs_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'running'::text, 'succeeded'::text, 'failed'::text, 'cancelled'::text])));
ALTER TABLE runs ADD CONSTRAINT runs_task_id_fkey FOREIGN KEY (task_id) REFERENCES tasks(id) ON DELETE SET NULL;
ALTER TABLE runs ADD CONSTRAINT runs_tokens_in_check CHECK ((tokens_in >= 0));
ALTER TABLE runs ADD CONSTRAINT runs_tokens_out_check CHECK ((tokens_out >= 0));
ALTER TABLE runs ADD CONSTRAINT runs_totalled TRIGGER DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE runs ADD CONSTRAINT runs_trigger_check CHECK ((trigger = ANY (ARRAY['manual'::text, 'assignment'::text, 'routine'::text, 'heartbeat'::text])));
ALTER TABLE runs SET (autovacuum_vacuum_scale_factor=0.02, fillfactor=90);
CREATE INDEX runs_agent ON public.runs USING btree (agent_id, created_at DESC, id DESC);
CREATE INDEX runs_agent_started ON public.runs USING btree (agent_id, started_at) WHERE (started_at IS NOT NULL);
CREATE INDEX runs_claim ON public.runs USING btree (company_id, created_at, id) WHERE (status = 'queued'::text);
CREATE INDEX runs_failed ON public.runs USING btree (company_id, ended_at DESC, id DESC) WHERE (status = 'failed'::text);
CREATE INDEX runs_list ON public.runs USING btree (company_id, created_at DESC, id DESC);
CREATE UNIQUE INDEX runs_one_identical_queued ON public.runs USING btree (agent_id, COALESCE(task_id, '00000000-0000-0000-0000-000000000000'::uuid), COALESCE(routine_id, '00000000-0000-0000-0000-000000000000'::uuid)) WHERE (status = 'queued'::text);
CREATE UNIQUE INDEX runs_one_running_per_agent ON public.runs USING btree ((
CASE
    WHEN (status = 'running'::text) THEN agent_id
    ELSE NULL::uuid
END));
CREATE INDEX runs_running ON public.runs USING btree (company_id) WHERE (status = 'running'::text);
CREATE INDEX runs_status ON public.runs USING btree (company_id, status, created_at DESC, id DESC);
CREATE INDEX runs_task ON public.runs USING btree (task_id, created_at DESC, id DESC) WHERE (task_id IS NOT NULL);
CREATE INDEX runs_untrimmed_ended ON public.runs USING btree (ended_at) WHERE ((ended_at IS NOT NULL) AND (transcript_trimmed_at IS NULL));
CREATE CONSTRAINT TRIGGER runs_retotalled AFTER UPDATE OF status, cost_cents, tokens_in, tokens_out, agent_id, created_at, billing ON public.runs DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN ((((old.status = 'succeeded'::text) <> (new.status = 'succeeded'::text)) OR ((old.status = 'failed'::text) <> (new.status = 'failed'::text)) OR (old.cost_cents <> new.cost_cents) OR (old.tokens_in <> new.tokens_in) OR (old.tokens_out <> new.tokens_out) OR (old.agent_id <> new.agent_id) OR (old.created_at <> new.created_at) OR (old.billing <> new.billing))) EXECUTE FUNCTION runs_totals_follow();
CREATE CONSTRAINT TRIGGER runs_totalled AFTER INSERT ON public.runs DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION runs_totals_follow();

CREATE TABLE schema_migrations (
  version integer NOT NULL,
  name text NOT NULL,
  applied_at timestamp with time zone NOT NULL DEFAULT now()
);
ALTER TABLE schema_migrations ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);

CREATE TABLE signing_keys (
  name text NOT NULL,
  secret text NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT now()
);
ALTER TABLE signing_keys ADD CONSTRAINT signing_keys_pkey PRIMARY KEY (name);

CREATE TABLE skills (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  company_id uuid NOT NULL,
  name character varying(64) NOT NULL,
  description character varying(1024) NOT NULL,
  body text NOT NULL DEFAULT ''::text,
  files jsonb NOT NULL DEFAULT '[]'::jsonb,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  updated_at timestamp with time zone NOT NULL DEFAULT now()
);
ALTER TABLE skills ADD CONSTRAINT skills_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE CASCADE;
ALTER TABLE skills ADD CONSTRAINT skills_company_id_name_key UNIQUE (company_id, name);
ALTER TABLE skills ADD CONSTRAINT skills_name_check CHECK (((name)::text ~ '^[a-z0-9-]{1,64}$'::text));
ALTER TABLE skills ADD CONSTRAINT skills_pkey PRIMARY KEY (id);

CREATE TABLE task_assignee_counts (
  company_id uuid NOT NULL,
  agent_id uuid NOT NULL,
  slot smallint NOT NULL DEFAULT 0,
  n integer NOT NULL DEFAULT 0
);
ALTER TABLE task_assignee_counts ADD CONSTRAINT task_assignee_counts_agent_id_fkey FOREIGN KEY (agent_id) REFERENCES agents(id) ON DELETE CASCADE;
ALTER TABLE task_assignee_counts ADD CONSTRAINT task_assignee_counts_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE CASCADE;
ALTER TABLE task_assignee_counts ADD CONSTRAINT task_assignee_counts_pkey PRIMARY KEY (agent_id, slot);

CREATE TABLE task_comments (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  company_id uuid NOT NULL,
  task_id uuid NOT NULL,
  kind text NOT NULL DEFAULT 'comment'::text,
  body text NOT NULL,
  author_user_id uuid,
  author_agent_id uuid,
  run_id uuid,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  updated_at timestamp with time zone NOT NULL DEFAULT now()
);
ALTER TABLE task_comments ADD CONSTRAINT task_comments_author_agent_id_fkey FOREIGN KEY (author_agent_id) REFERENCES agents(id);
ALTER TABLE task_comments ADD CONSTRAINT task_comments_author_user_id_fkey FOREIGN KEY (author_user_id) REFERENCES users(id);
ALTER TABLE task_comments ADD CONSTRAINT task_comments_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE CASCADE;
ALTER TABLE task_comments ADD CONSTRAINT task_comments_kind_check CHECK ((kind = ANY (ARRAY['comment'::text, 'question'::text, 'plan'::text, 'system'::text])));
ALTER TABLE task_comments ADD CONSTRAINT task_comments_pkey PRIMARY KEY (id);
ALTER TABLE task_comments ADD CONSTRAINT task_comments_run_id_fkey FOREIGN KEY (run_id) REFERENCES runs(id) ON DELETE SET NULL;
ALTER TABLE task_comments ADD CONSTRAINT task_comments_task_id_fkey FOREIGN KEY (task_id) REFERENCES tasks(id) ON DELETE CASCADE;
CREATE INDEX task_comments_task ON public.task_comments USING btree (task_id, created_at, id);

CREATE TABLE task_counts (
  company_id uuid NOT NULL,
  status text NOT NULL,
  priority text NOT NULL,
  n integer NOT NULL DEFAULT 0,
  slot smallint NOT NULL DEFAULT 0
);
ALTER TABLE task_counts ADD CONSTRAINT task_counts_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE CASCADE;
ALTER TABLE task_counts ADD CONSTRAINT task_counts_pkey PRIMARY KEY (company_id, status, priority, slot);

CREATE TABLE task_creator_counts (
  company_id uuid NOT NULL,
  user_id uuid NOT NULL,
  status text NOT NULL,
  slot smallint NOT NULL DEFAULT 0,
  n integer NOT NULL DEFAULT 0
);
ALTER TABLE task_creator_counts ADD CONSTRAINT task_creator_counts_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE CASCADE;
ALTER TABLE task_creator_counts ADD CONSTRAINT task_creator_counts_pkey PRIMARY KEY (company_id, user_id, status, slot);
ALTER TABLE task_creator_counts ADD CONSTRAINT task_creator_counts_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE;

CREATE TABLE task_days (
  company_id uuid NOT NULL,
  day date NOT NULL,
  created integer NOT NULL DEFAULT 0,
  completed integer NOT NULL DEFAULT 0,
  slot smallint NOT NULL DEFAULT 0
);
ALTER TABLE task_days ADD CONSTRAINT task_days_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE CASCADE;
ALTER TABLE task_days ADD CONSTRAINT task_days_pkey PRIMARY KEY (company_id, day, slot);
CREATE INDEX task_days_unfolded ON public.task_days USING btree (day) WHERE (slot >= 0);

CREATE TABLE tasks (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  company_id uuid NOT NULL,
  number integer NOT NULL,
  title character varying(300) NOT NULL,
  description text,
  status text NOT NULL DEFAULT 'todo'::text,
  priority text NOT NULL DEFAULT 'medium'::text,
  assignee_agent_id uuid,
  project_id uuid,
  goal_id uuid,
  parent_id uuid,
  routine_id uuid,
  due_date timestamp with time zone,
  sort_order integer NOT NULL DEFAULT 0,
  created_by_agent_id uuid,
  created_by_user_id uuid,
  started_at timestamp with time zone,
  completed_at timestamp with time zone,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  updated_at timestamp with time zone NOT NULL DEFAULT now(),
  blocked_by_run_id uuid
);
ALTER TABLE tasks ADD CONSTRAINT tasks_assignee_agent_id_fkey FOREIGN KEY (assignee_agent_id) REFERENCES agents(id);
ALTER TABLE tasks ADD CONSTRAINT tasks_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE CASCADE;
ALTER TABLE tasks ADD CONSTRAINT tasks_company_id_number_key UNIQUE (company_id, number);
ALTER TABLE tasks ADD CONSTRAINT tasks_counted TRIGGER DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE tasks ADD CONSTRAINT tasks_created_by_agent_id_fkey FOREIGN KEY (created_by_agent_id) REFERENCES agents(id);
ALTER TABLE tasks ADD CONSTRAINT tasks_created_by_user_id_fkey FOREIGN KEY (created_by_user_id) REFERENCES users(id);
ALTER TABLE tasks ADD CONSTRAINT tasks_goal_id_fkey FOREIGN KEY (goal_id) REFERENCES goals(id) ON DELETE SET NULL;
ALTER TABLE tasks ADD CONSTRAINT tasks_parent_id_fkey FOREIGN KEY (parent_id) REFERENCES tasks(id) ON DELETE SET NULL;
ALTER TABLE tasks ADD CONSTRAINT tasks_pkey PRIMARY KEY (id);
ALTER TABLE tasks ADD CONSTRAINT tasks_priority_check CHECK ((priority = ANY (ARRAY['urgent'::text, 'high'::text, 'medium'::text, 'low'::text, 'none'::text])));
ALTER TABLE tasks ADD CONSTRAINT tasks_project_id_fkey FOREIGN KEY (project_id) REFERENCES projects(id);
ALTER TABLE tasks ADD CONSTRAINT tasks_recounted TRIGGER DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE tasks ADD CONSTRAINT tasks_routine_id_fkey FOREIGN KEY (routine_id) REFERENCES routines(id) ON DELETE SET NULL;
ALTER TABLE tasks ADD CONSTRAINT tasks_status_check CHECK ((status = ANY (ARRAY['backlog'::text, 'todo'::text, 'in_progress'::text, 'in_review'::text, 'blocked'::text, 'done'::text, 'cancelled'::text])));
CREATE INDEX tasks_assignee ON public.tasks USING btree (assignee_agent_id, sort_order, number DESC) WHERE (assignee_agent_id IS NOT NULL);
CREATE INDEX tasks_created_by ON public.tasks USING btree (company_id, created_by_user_id, sort_order, number DESC) WHERE (created_by_user_id IS NOT NULL);
CREATE INDEX tasks_description_trgm ON public.tasks USING gin (description gin_trgm_ops);
CREATE INDEX tasks_goal ON public.tasks USING btree (goal_id, sort_order, number DESC) WHERE (goal_id IS NOT NULL);
CREATE INDEX tasks_list ON public.tasks USING btree (company_id, sort_order, number DESC);
CREATE INDEX tasks_open_assignee ON public.tasks USING btree (assignee_agent_id) WHERE (status <> ALL (ARRAY['done'::text, 'cancelled'::text]));
CREATE INDEX tasks_open_creator_recent ON public.tasks USING btree (company_id, created_by_user_id, updated_at DESC, id DESC) WHERE (status <> ALL (ARRAY['done'::text, 'cancelled'::text]));
CREATE INDEX tasks_parent ON public.tasks USING btree (parent_id, sort_order, number DESC) WHERE (parent_id IS NOT NULL);
CREATE INDEX tasks_project ON public.tasks USING btree (project_id, sort_order, number DESC) WHERE (project_id IS NOT NULL);
CREATE INDEX tasks_routine ON public.tasks USING btree (routine_id) WHERE (routine_id IS NOT NULL);
CREATE INDEX tasks_status ON public.tasks USING btree (company_id, status, sort_order, number DESC);
CREATE INDEX tasks_title_trgm ON public.tasks USING gin (title gin_trgm_ops);
CREATE CONSTRAINT TRIGGER tasks_counted AFTER INSERT OR DELETE ON public.tasks DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION tasks_counters_follow();
CREATE TRIGGER tasks_delete_moves_run_totals BEFORE DELETE ON public.tasks FOR EACH ROW WHEN ((old.project_id IS NOT NULL)) EXECUTE FUNCTION tasks_move_run_totals();
CREATE TRIGGER tasks_project_moves_run_totals AFTER UPDATE OF project_id ON public.tasks FOR EACH ROW WHEN ((old.project_id IS DISTINCT FROM new.project_id)) EXECUTE FUNCTION tasks_move_run_totals();
CREATE CONSTRAINT TRIGGER tasks_recounted AFTER UPDATE OF status, priority, created_at, completed_at, created_by_user_id, assignee_agent_id, goal_id ON public.tasks DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (((old.status IS DISTINCT FROM new.status) OR (old.priority IS DISTINCT FROM new.priority) OR (old.created_at IS DISTINCT FROM new.created_at) OR (old.completed_at IS DISTINCT FROM new.completed_at) OR (old.created_by_user_id IS DISTINCT FROM new.created_by_user_id) OR (old.assignee_agent_id IS DISTINCT FROM new.assignee_agent_id) OR (old.goal_id IS DISTINCT FROM new.goal_id))) EXECUTE FUNCTION tasks_counters_follow();

CREATE TABLE users (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  email text NOT NULL,
  name text NOT NULL,
  password_hash text,
  avatar_url character varying(500),
  preferences jsonb NOT NULL DEFAULT '{}'::jsonb,
  organization character varying(255),
  is_active boolean NOT NULL DEFAULT true,
  failed_logins integer NOT NULL DEFAULT 0,
  locked_until timestamp with time zone,
  password_changed_at timestamp with time zone,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  updated_at timestamp with time zone NOT NULL DEFAULT now(),
  email_verified_at timestamp with time zone
);
ALTER TABLE users ADD CONSTRAINT users_pkey PRIMARY KEY (id);
CREATE UNIQUE INDEX users_email_key ON public.users USING btree (lower(email));
CREATE TRIGGER users_credentials_changed AFTER DELETE OR UPDATE OF name, email, is_active, password_changed_at OR TRUNCATE ON public.users FOR EACH STATEMENT EXECUTE FUNCTION notify_channel('credentials_changed');

CREATE TABLE webhook_deliveries (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  seq bigint NOT NULL DEFAULT nextval('webhook_deliveries_seq_seq'::regclass),
  webhook_id uuid NOT NULL,
  company_id uuid NOT NULL,
  event_id text NOT NULL,
  type text NOT NULL,
  payload jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending'::text,
  attempts integer NOT NULL DEFAULT 0,
  last_status_code integer,
  last_error text,
  last_attempt_at timestamp with time zone,
  next_attempt_at timestamp with time zone,
  leased_until timestamp with time zone,
  retry_window_from timestamp with time zone NOT NULL DEFAULT now(),
  delivered_at timestamp with time zone,
  created_at timestamp with time zone NOT NULL DEFAULT now()
);
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE CASCADE;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id);
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'delivered'::text, 'failed'::text])));
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_webhook_id_fkey FOREIGN KEY (webhook_id) REFERENCES webhooks(id) ON DELETE CASCADE;
CREATE INDEX webhook_deliveries_due ON public.webhook_deliveries USING btree (next_attempt_at, seq) WHERE (status = 'pending'::text);
CREATE INDEX webhook_deliveries_finished ON public.webhook_deliveries USING btree (created_at) WHERE (status <> 'pending'::text);
CREATE INDEX webhook_deliveries_log ON public.webhook_deliveries USING btree (webhook_id, created_at DESC, seq DESC);
CREATE TRIGGER deliveries_queued AFTER INSERT ON public.webhook_deliveries FOR EACH STATEMENT EXECUTE FUNCTION notify_channel('deliveries_queued');

CREATE TABLE webhooks (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  company_id uuid NOT NULL,
  url character varying(2000) NOT NULL,
  events text[] NOT NULL DEFAULT '{*}'::text[],
  enabled boolean NOT NULL DEFAULT true,
  description text,
  secret text NOT NULL,
  disabled_reason text,
  failing_since timestamp with time zone,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  updated_at timestamp with time zone NOT NULL DEFAULT now()
);
ALTER TABLE webhooks ADD CONSTRAINT webhooks_company_id_fkey FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE CASCADE;
ALTER TABLE webhooks ADD CONSTRAINT webhooks_pkey PRIMARY KEY (id);
CREATE INDEX webhooks_company ON public.webhooks USING btree (company_id, created_at);
CREATE TRIGGER webhooks_changed AFTER INSERT OR DELETE OR UPDATE OF enabled, events OR TRUNCATE ON public.webhooks FOR EACH STATEMENT EXECUTE FUNCTION notify_channel('webhooks_changed');

CREATE OR REPLACE FUNCTION public.claim_run(company uuid, runner text, dormant text[], only_agents uuid[], only_adapters text[], lease_seconds integer, actor_type text, actor_name text, actor_user_id uuid, actor_agent_id uuid, actor_run_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_sort TO 'off'
 SET enable_bitmapscan TO 'off'
 SET enable_seqscan TO 'off'
 SET enable_material TO 'off'
 SET enable_incremental_sort TO 'off'
AS $function$
DECLARE
  claimed jsonb;
  tripped jsonb;
BEGIN
  -- runs_running holds only running runs, so this never reads history.
  IF EXISTS (SELECT 1 FROM runs
              WHERE status = 'running' AND company_id = company
                AND coalesce(heartbeat_at, started_at) < now() - make_interval(secs => lease_seconds)) THEN
    RETURN '{"stale": true}'::jsonb;
  END IF;

  -- Runaway breaker (API-DECISIONS.md "Spend control"): agents with max_runs_per_hour that
  -- already started that many runs in the last 60 minutes (since the breaker's last approval)
  -- and have a queued run are reported instead of claiming. agents_run_limit holds only agents
  -- with a limit: a company without any pays one empty index probe.
  SELECT jsonb_agg(a.id) INTO tripped FROM agents a
   WHERE a.company_id = company AND a.max_runs_per_hour > 0 AND NOT (a.status = ANY(dormant))
     AND (only_agents IS NULL OR a.id = ANY(only_agents))
     AND (only_adapters IS NULL OR a.adapter = ANY(only_adapters))
     AND (SELECT count(*) FROM runs s
           WHERE s.agent_id = a.id
             AND s.started_at >= greatest(now() - interval '60 minutes', coalesce(a.breaker_reset_at, '-infinity'))) >= a.max_runs_per_hour
     AND EXISTS (SELECT 1 FROM runs q WHERE q.agent_id = a.id AND q.status = 'queued'
                   AND (q.not_before IS NULL OR q.not_before <= now()));
  IF tripped IS NOT NULL THEN
    RETURN jsonb_build_object('tripped', tripped);
  END IF;

  WITH candidate AS (
    SELECT r.id, r.task_id, a.name AS agent_name FROM runs r JOIN agents a ON a.id = r.agent_id
     WHERE r.company_id = company AND r.status = 'queued'
       -- A run deferred to a provider limit's reset waits for it (migration 210).
       AND (r.not_before IS NULL OR r.not_before <= now())
       AND NOT (a.status = ANY(dormant))
       -- One probe of runs_one_running_per_agent per candidate, written as the index holds it
       -- (runs/model.ts: runningAgentIs, migration 129). Asked as status = 'running', on
       -- statistics taken while nothing ran, it read the company's running runs per candidate.
       AND NOT EXISTS (SELECT 1 FROM runs x WHERE (CASE WHEN x.status = 'running' THEN x.agent_id END) = r.agent_id)
       AND (only_agents IS NULL OR r.agent_id = ANY(only_agents))
       AND (only_adapters IS NULL OR a.adapter = ANY(only_adapters))
     ORDER BY r.created_at, r.id
     LIMIT 1
     FOR NO KEY UPDATE OF r, a SKIP LOCKED
  ), old_task AS (
    -- Read (and locked) before the run is started, so that the run can record the status its
    -- task had (task_status_before: a failed run puts it back, runs/finish.ts). The order of
    -- locks is unchanged: the candidate run and agent are locked first, by the candidate query.
    SELECT id, status, started_at FROM tasks
     WHERE id = (SELECT task_id FROM candidate) AND company_id = company AND status IN ('backlog', 'todo')
     FOR NO KEY UPDATE
  ), run AS (
    UPDATE runs SET status = 'running', runner_id = runner, started_at = now(), heartbeat_at = now(), updated_at = now(),
                    task_status_before = (SELECT status FROM old_task)
      FROM candidate
     WHERE runs.id = candidate.id AND runs.status = 'queued'
    RETURNING runs.*, candidate.agent_name
  ), agent AS (
    UPDATE agents SET status = 'running', last_activity = now(), updated_at = now()
     WHERE id = (SELECT agent_id FROM run) AND company_id = company AND status IN ('idle', 'error')
  ), task AS (
    UPDATE tasks t SET status = 'in_progress', started_at = coalesce(t.started_at, now()), updated_at = now()
      FROM old_task o, companies c
     WHERE t.id = o.id AND c.id = t.company_id AND EXISTS (SELECT 1 FROM run)
    RETURNING t.id, t.title, c.task_prefix || '-' || t.number AS key, o.status AS old_status,
              o.started_at IS NULL AS started_at_changed, t.started_at
  ), audit AS MATERIALIZED (
    SELECT record_audit_events(company,
             jsonb_build_array(jsonb_build_object(
               -- A runner's claim is the service starting the agent's run: `system`, named after the agent.
               'actor_type', claim_run.actor_type,
               'actor_name', CASE WHEN claim_run.actor_type = 'system' THEN run.agent_name ELSE claim_run.actor_name END,
               'actor_user_id', claim_run.actor_user_id, 'actor_agent_id', claim_run.actor_agent_id, 'run_id', actor_run_id,
               'verb', 'started', 'entity_type', 'run', 'entity_id', run.id, 'label', run.agent_name || ' (' || run.trigger || ')',
               'changes', '{"status": ["queued", "running"]}'::jsonb))
             || coalesce((SELECT jsonb_build_array(jsonb_build_object(
                  'actor_type', 'system', 'actor_name', run.agent_name,
                  'verb', 'moved', 'entity_type', 'task', 'entity_id', task.id, 'label', task.key || ' ' || task.title,
                  'changes', jsonb_build_object('status', jsonb_build_array(task.old_status, 'in_progress'))
                               || CASE WHEN task.started_at_changed
                                       THEN jsonb_build_object('started_at', jsonb_build_array(NULL, task.started_at))
                                       ELSE '{}'::jsonb END))
                  FROM task), '[]'::jsonb)) AS written
      FROM run
  )
  -- Joining audit makes the statement write the events.
  -- The run's transcript (run_transcript_entries, migration 220) goes with it: a queued run holds
  -- only the few entries written with it (why it was queued), which the run context shows.
  SELECT to_jsonb(run) || jsonb_build_object(
           'started_task_id', (SELECT id FROM task),
           'transcript', (SELECT coalesce(jsonb_agg(e.entry ORDER BY e.seq), '[]'::jsonb) FROM run_transcript_entries e WHERE e.run_id = run.id))
    INTO claimed FROM run, audit;
  RETURN claimed;
END $function$;

CREATE OR REPLACE FUNCTION public.counter_slot()
 RETURNS smallint
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
  SELECT coalesce(nullif(current_setting('shopfloor.slot', true), '')::smallint, (pg_backend_pid() % 16)::smallint)
$function$;

CREATE OR REPLACE FUNCTION public.notify_channel()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM pg_notify(TG_ARGV[0], '');
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.queue_run(company uuid, agent uuid, task uuid, routine uuid, run_trigger text, transcript jsonb)
 RETURNS SETOF runs
 LANGUAGE plpgsql
AS $function$
DECLARE
  queued runs;
BEGIN
  INSERT INTO runs (company_id, agent_id, task_id, routine_id, trigger, transcript_count)
  VALUES (company, agent, task, routine, run_trigger, jsonb_array_length(queue_run.transcript))
  ON CONFLICT (agent_id,
               coalesce(task_id, '00000000-0000-0000-0000-000000000000'::uuid),
               coalesce(routine_id, '00000000-0000-0000-0000-000000000000'::uuid))
    WHERE status = 'queued'
  DO NOTHING
  RETURNING * INTO queued;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  INSERT INTO run_transcript_entries (run_id, seq, entry)
  SELECT queued.id, x.n, jsonb_set(x.e, '{timestamp}', to_jsonb(now()))
    FROM jsonb_array_elements(queue_run.transcript) WITH ORDINALITY AS x(e, n);
  RETURN NEXT queued;
END $function$;

CREATE OR REPLACE FUNCTION public.record_audit_events(company uuid, events jsonb)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  wanted integer := jsonb_array_length(events);
  at timestamptz;
  lost timestamptz;
  met text;
BEGIN
  IF wanted = 0 THEN RETURN 0; END IF;
  LOOP
    at := greatest(clock_timestamp(), (SELECT max(created_at) FROM audit_events WHERE company_id = company) + interval '1 microsecond');
    BEGIN
      INSERT INTO audit_events (company_id, actor_type, actor_name, actor_user_id, actor_agent_id,
                                verb, entity_type, entity_id, label, changes, run_id, created_at)
      SELECT company, e.actor_type, e.actor_name, e.actor_user_id, e.actor_agent_id, e.verb, e.entity_type, e.entity_id,
             e.label, coalesce(e.changes, '{}'::jsonb), e.run_id, at + (e.n - 1) * interval '1 microsecond'
        FROM ROWS FROM (jsonb_to_recordset(events)
               AS (actor_type text, actor_name text, actor_user_id uuid, actor_agent_id uuid, verb text,
                   entity_type text, entity_id uuid, label text, changes jsonb, run_id uuid))
             WITH ORDINALITY AS e(actor_type, actor_name, actor_user_id, actor_agent_id, verb, entity_type, entity_id,
                                  label, changes, run_id, n)
       ORDER BY e.n;
      RETURN wanted;
    EXCEPTION WHEN unique_violation THEN
      GET STACKED DIAGNOSTICS met = CONSTRAINT_NAME;
      IF met IS DISTINCT FROM 'audit_events_page' OR at <= lost THEN RAISE; END IF;
      lost := at;
    END;
  END LOOP;
END $function$;

CREATE OR REPLACE FUNCTION public.recount_totals(companies uuid[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  DELETE FROM task_counts WHERE company_id = ANY(companies);
  INSERT INTO task_counts (company_id, status, priority, n)
  SELECT company_id, status, priority, count(*) FROM tasks WHERE company_id = ANY(companies) GROUP BY 1, 2, 3;

  DELETE FROM task_creator_counts WHERE company_id = ANY(companies);
  INSERT INTO task_creator_counts (company_id, user_id, status, n)
  SELECT company_id, created_by_user_id, status, count(*) FROM tasks
   WHERE company_id = ANY(companies) AND created_by_user_id IS NOT NULL GROUP BY 1, 2, 3;

  DELETE FROM task_assignee_counts WHERE company_id = ANY(companies);
  INSERT INTO task_assignee_counts (company_id, agent_id, n)
  SELECT company_id, assignee_agent_id, count(*) FROM tasks
   WHERE company_id = ANY(companies) AND assignee_agent_id IS NOT NULL AND status NOT IN ('done', 'cancelled') GROUP BY 1, 2;

  DELETE FROM task_days WHERE company_id = ANY(companies);
  INSERT INTO task_days (company_id, day, created, completed)
  SELECT company_id, day, sum(created), sum(completed) FROM (
    SELECT company_id, (created_at AT TIME ZONE 'UTC')::date AS day, 1 AS created, 0 AS completed
      FROM tasks WHERE company_id = ANY(companies)
    UNION ALL
    SELECT company_id, (completed_at AT TIME ZONE 'UTC')::date, 0, 1
      FROM tasks WHERE company_id = ANY(companies) AND completed_at IS NOT NULL) d
   GROUP BY 1, 2;

  DELETE FROM goal_task_counts WHERE goal_id IN (SELECT id FROM goals WHERE company_id = ANY(companies));
  INSERT INTO goal_task_counts (goal_id, total, done)
  SELECT goal_id, count(*), count(*) FILTER (WHERE status = 'done') FROM tasks
   WHERE company_id = ANY(companies) AND goal_id IS NOT NULL GROUP BY 1;

  DELETE FROM run_totals WHERE company_id = ANY(companies);
  INSERT INTO run_totals (company_id, day, agent_id, project_id, runs, runs_succeeded, runs_failed, cost_cents, tokens_in, tokens_out, plan_cost_cents)
  SELECT r.company_id, (r.created_at AT TIME ZONE 'UTC')::date, r.agent_id, t.project_id, count(*),
         count(*) FILTER (WHERE r.status = 'succeeded'), count(*) FILTER (WHERE r.status = 'failed'),
         sum(r.cost_cents), sum(r.tokens_in), sum(r.tokens_out), coalesce(sum(r.cost_cents) FILTER (WHERE r.billing = 'plan'), 0)
    FROM runs r LEFT JOIN tasks t ON t.id = r.task_id
   WHERE r.company_id = ANY(companies) GROUP BY 1, 2, 3, 4;
END $function$;

CREATE OR REPLACE FUNCTION public.run_totals_add(company uuid, on_day date, agent uuid, project uuid, n_runs integer, n_succeeded integer, n_failed integer, cost bigint, t_in bigint, t_out bigint, plan_cost bigint)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO run_totals AS t (company_id, day, agent_id, project_id, runs, runs_succeeded, runs_failed, cost_cents, tokens_in, tokens_out, plan_cost_cents, slot)
  VALUES (company, on_day, agent, project, n_runs, n_succeeded, n_failed, cost, t_in, t_out, plan_cost, counter_slot())
  ON CONFLICT ON CONSTRAINT run_totals_key DO UPDATE SET
    runs = t.runs + excluded.runs,
    runs_succeeded = t.runs_succeeded + excluded.runs_succeeded,
    runs_failed = t.runs_failed + excluded.runs_failed,
    cost_cents = t.cost_cents + excluded.cost_cents,
    tokens_in = t.tokens_in + excluded.tokens_in,
    tokens_out = t.tokens_out + excluded.tokens_out,
    plan_cost_cents = t.plan_cost_cents + excluded.plan_cost_cents;
END $function$;

CREATE OR REPLACE FUNCTION public.run_totals_move_task(task uuid, from_project uuid, to_project uuid)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  g record;
  to_first boolean := from_project IS NULL OR (to_project IS NOT NULL AND to_project < from_project);
BEGIN
  FOR g IN
    SELECT r.company_id, (r.created_at AT TIME ZONE 'UTC')::date AS day, r.agent_id, count(*)::int AS runs,
           (count(*) FILTER (WHERE r.status = 'succeeded'))::int AS succeeded,
           (count(*) FILTER (WHERE r.status = 'failed'))::int AS failed,
           sum(r.cost_cents)::bigint AS cost, sum(r.tokens_in)::bigint AS t_in, sum(r.tokens_out)::bigint AS t_out,
           coalesce(sum(r.cost_cents) FILTER (WHERE r.billing = 'plan'), 0)::bigint AS plan_cost
      FROM runs r WHERE r.task_id = task
     GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  LOOP
    IF to_first THEN
      PERFORM run_totals_add(g.company_id, g.day, g.agent_id, to_project, g.runs, g.succeeded, g.failed, g.cost, g.t_in, g.t_out, g.plan_cost);
    END IF;
    PERFORM run_totals_add(g.company_id, g.day, g.agent_id, from_project, -g.runs, -g.succeeded, -g.failed, -g.cost, -g.t_in, -g.t_out, -g.plan_cost);
    IF NOT to_first THEN
      PERFORM run_totals_add(g.company_id, g.day, g.agent_id, to_project, g.runs, g.succeeded, g.failed, g.cost, g.t_in, g.t_out, g.plan_cost);
    END IF;
  END LOOP;
END $function$;

CREATE OR REPLACE FUNCTION public.runs_totals_follow()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  same_row boolean := TG_OP = 'UPDATE' AND OLD.agent_id = NEW.agent_id
                      AND (OLD.created_at AT TIME ZONE 'UTC')::date = (NEW.created_at AT TIME ZONE 'UTC')::date;
  was_succeeded integer := 0;
  was_failed integer := 0;
  was_cost bigint := 0;
  was_in bigint := 0;
  was_out bigint := 0;
  was_plan bigint := 0;
BEGIN
  -- A transaction writing a company's runs in bulk (an import's assignment runs) counts them
  -- afresh itself (recount_totals), as for tasks: it names the company in shopfloor.uncounted_company.
  IF current_setting('shopfloor.uncounted_company', true) = NEW.company_id::text THEN RETURN NULL; END IF;
  IF same_row THEN
    was_succeeded := (OLD.status = 'succeeded')::int;
    was_failed := (OLD.status = 'failed')::int;
    was_cost := OLD.cost_cents;
    was_in := OLD.tokens_in;
    was_out := OLD.tokens_out;
    was_plan := CASE WHEN OLD.billing = 'plan' THEN OLD.cost_cents ELSE 0 END;
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM run_totals_add(OLD.company_id, (OLD.created_at AT TIME ZONE 'UTC')::date, OLD.agent_id,
                           (SELECT project_id FROM tasks WHERE id = OLD.task_id), -1, -(OLD.status = 'succeeded')::int,
                           -(OLD.status = 'failed')::int, -OLD.cost_cents, -OLD.tokens_in, -OLD.tokens_out,
                           -CASE WHEN OLD.billing = 'plan' THEN OLD.cost_cents ELSE 0 END);
  END IF;
  PERFORM run_totals_add(NEW.company_id, (NEW.created_at AT TIME ZONE 'UTC')::date, NEW.agent_id,
                         (SELECT project_id FROM tasks WHERE id = NEW.task_id), CASE WHEN same_row THEN 0 ELSE 1 END,
                         (NEW.status = 'succeeded')::int - was_succeeded, (NEW.status = 'failed')::int - was_failed,
                         NEW.cost_cents - was_cost, NEW.tokens_in - was_in, NEW.tokens_out - was_out,
                         CASE WHEN NEW.billing = 'plan' THEN NEW.cost_cents ELSE 0 END - was_plan);
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.tasks_counters_follow()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  -- The connection's slot of the counters.
  my_slot smallint := counter_slot();
  counts boolean := true;
  creators boolean := true;
  assignees boolean := true;
  days boolean := true;
  goals boolean := true;
BEGIN
  -- A company being deleted takes its counters with it.
  IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM companies WHERE id = OLD.company_id) THEN RETURN NULL; END IF;
  -- A transaction writing a company's tasks in bulk counts them afresh itself (recount_totals):
  -- it names the company in the transaction's setting shopfloor.uncounted_company.
  IF TG_OP <> 'DELETE' AND current_setting('shopfloor.uncounted_company', true) = NEW.company_id::text THEN RETURN NULL; END IF;
  IF TG_OP = 'UPDATE' THEN
    counts := OLD.status IS DISTINCT FROM NEW.status OR OLD.priority IS DISTINCT FROM NEW.priority;
    creators := OLD.status IS DISTINCT FROM NEW.status OR OLD.created_by_user_id IS DISTINCT FROM NEW.created_by_user_id;
    -- A move between open statuses (a claim's todo -> in_progress) leaves it alone.
    assignees := OLD.assignee_agent_id IS DISTINCT FROM NEW.assignee_agent_id
              OR (OLD.status IN ('done', 'cancelled')) <> (NEW.status IN ('done', 'cancelled'));
    days := OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.completed_at IS DISTINCT FROM NEW.completed_at;
    goals := OLD.goal_id IS DISTINCT FROM NEW.goal_id OR (OLD.status = 'done') <> (NEW.status = 'done');
  END IF;
  -- task_counts rows, then task_creator_counts, task_assignee_counts, task_days and
  -- goal_task_counts rows in every transaction, so two cannot wait on each other.
  IF TG_OP IN ('UPDATE', 'DELETE') AND counts THEN
    INSERT INTO task_counts AS c (company_id, status, priority, slot, n) VALUES (OLD.company_id, OLD.status, OLD.priority, my_slot, -1)
    ON CONFLICT (company_id, status, priority, slot) DO UPDATE SET n = c.n - 1;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND counts THEN
    INSERT INTO task_counts AS c (company_id, status, priority, slot, n) VALUES (NEW.company_id, NEW.status, NEW.priority, my_slot, 1)
    ON CONFLICT (company_id, status, priority, slot) DO UPDATE SET n = c.n + 1;
  END IF;
  -- Slotted like task_counts: one person creating tasks from many connections at once.
  IF TG_OP IN ('UPDATE', 'DELETE') AND creators AND OLD.created_by_user_id IS NOT NULL THEN
    INSERT INTO task_creator_counts AS c (company_id, user_id, status, slot, n) VALUES (OLD.company_id, OLD.created_by_user_id, OLD.status, my_slot, -1)
    ON CONFLICT (company_id, user_id, status, slot) DO UPDATE SET n = c.n - 1;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND creators AND NEW.created_by_user_id IS NOT NULL THEN
    INSERT INTO task_creator_counts AS c (company_id, user_id, status, slot, n) VALUES (NEW.company_id, NEW.created_by_user_id, NEW.status, my_slot, 1)
    ON CONFLICT (company_id, user_id, status, slot) DO UPDATE SET n = c.n + 1;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') AND assignees AND OLD.assignee_agent_id IS NOT NULL AND OLD.status NOT IN ('done', 'cancelled') THEN
    INSERT INTO task_assignee_counts AS c (company_id, agent_id, slot, n) VALUES (OLD.company_id, OLD.assignee_agent_id, my_slot, -1)
    ON CONFLICT (agent_id, slot) DO UPDATE SET n = c.n - 1;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND assignees AND NEW.assignee_agent_id IS NOT NULL AND NEW.status NOT IN ('done', 'cancelled') THEN
    INSERT INTO task_assignee_counts AS c (company_id, agent_id, slot, n) VALUES (NEW.company_id, NEW.assignee_agent_id, my_slot, 1)
    ON CONFLICT (agent_id, slot) DO UPDATE SET n = c.n + 1;
  END IF;
  -- Slotted too: a day's creates from many connections at once. A slot's row may go below 0
  -- (a task counted in one slot, moved or deleted through another); the day's sum is right.
  IF TG_OP IN ('UPDATE', 'DELETE') AND days THEN
    INSERT INTO task_days AS d (company_id, day, slot, created) VALUES (OLD.company_id, (OLD.created_at AT TIME ZONE 'UTC')::date, my_slot, -1)
    ON CONFLICT (company_id, day, slot) DO UPDATE SET created = d.created - 1;
    IF OLD.completed_at IS NOT NULL THEN
      INSERT INTO task_days AS d (company_id, day, slot, completed) VALUES (OLD.company_id, (OLD.completed_at AT TIME ZONE 'UTC')::date, my_slot, -1)
      ON CONFLICT (company_id, day, slot) DO UPDATE SET completed = d.completed - 1;
    END IF;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND days THEN
    INSERT INTO task_days AS d (company_id, day, slot, created) VALUES (NEW.company_id, (NEW.created_at AT TIME ZONE 'UTC')::date, my_slot, 1)
    ON CONFLICT (company_id, day, slot) DO UPDATE SET created = d.created + 1;
    IF NEW.completed_at IS NOT NULL THEN
      INSERT INTO task_days AS d (company_id, day, slot, completed) VALUES (NEW.company_id, (NEW.completed_at AT TIME ZONE 'UTC')::date, my_slot, 1)
      ON CONFLICT (company_id, day, slot) DO UPDATE SET completed = d.completed + 1;
    END IF;
  END IF;
  -- Through the goal's row: a goal deleted in the same transaction (its tasks detached first)
  -- has taken its counters with it, and is left alone.
  IF TG_OP IN ('UPDATE', 'DELETE') AND goals AND OLD.goal_id IS NOT NULL THEN
    INSERT INTO goal_task_counts AS c (goal_id, slot, total, done)
    SELECT id, my_slot, -1, -(OLD.status = 'done')::int FROM goals WHERE id = OLD.goal_id
    ON CONFLICT (goal_id, slot) DO UPDATE SET total = c.total - 1, done = c.done + excluded.done;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND goals AND NEW.goal_id IS NOT NULL THEN
    INSERT INTO goal_task_counts AS c (goal_id, slot, total, done)
    SELECT id, my_slot, 1, (NEW.status = 'done')::int FROM goals WHERE id = NEW.goal_id
    ON CONFLICT (goal_id, slot) DO UPDATE SET total = c.total + 1, done = c.done + excluded.done;
  END IF;
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.tasks_move_run_totals()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    PERFORM run_totals_move_task(NEW.id, OLD.project_id, NEW.project_id);
  -- A company being deleted takes its totals with it; nothing to move.
  ELSIF EXISTS (SELECT 1 FROM companies WHERE id = OLD.company_id) THEN
    PERFORM run_totals_move_task(OLD.id, OLD.project_id, NULL);
  END IF;
  RETURN OLD; -- a BEFORE DELETE trigger returning NULL would cancel the delete
END $function$;
