// Records and request bodies of the public API, as the server sends and accepts them
// (snake_case JSON; timestamps are ISO 8601 strings; money is integer cents).

export type Uuid = string
export type Timestamp = string

// --- Accounts -----------------------------------------------------------------------------

export interface Preferences {
  accent?: 'royal' | 'sky' | 'slate' | 'ink'
  avatar_color?: 'royal' | 'sky' | 'slate' | 'ink'
  currency?: string
  dashboard?: { hidden?: string[]; order?: string[]; range_days?: 7 | 14 | 30 }
  date_style?: 'short' | 'medium' | 'long'
  density?: 'comfortable' | 'compact'
  favorites?: { agents?: Uuid[]; projects?: Uuid[] }
  locale?: string
  sidebar_collapsed?: boolean
  tasks?: { saved_views?: { id: string; name: string; query: string }[]; view?: 'list' | 'board' }
  theme?: 'light' | 'dark' | 'system'
  timezone?: string
  version?: number
}

/** A preferences update: `null` removes a setting, objects merge key by key. */
export type PreferencesPatch = { [K in keyof Preferences]?: Preferences[K] | null }

export interface User {
  id: Uuid
  email: string
  name: string
  created_at: Timestamp
  avatar_url: string | null
  preferences: Preferences
}

export interface Session {
  access_token: string
  refresh_token: string
  user: User
}

export interface ApiKey {
  id: Uuid
  name: string
  prefix: string
  created_at: Timestamp
  last_used: Timestamp | null
  expires_at: Timestamp | null
}

/** The create answer: the only time the secret is shown. */
export interface CreatedApiKey extends ApiKey {
  key: string
}

// --- Companies ------------------------------------------------------------------------------

export type Role = 'owner' | 'admin' | 'member'

export interface Company {
  id: Uuid
  name: string
  mission: string | null
  monthly_budget_cents: number
  task_prefix: string
  created_at: Timestamp | null
  role?: Role | null
}

export interface CompanyCreate {
  name: string
  mission?: string | null
  monthly_budget_cents?: number
  task_prefix?: string
}

export type CompanyUpdate = Partial<Omit<CompanyCreate, 'task_prefix'>> & { task_prefix?: string }

export interface Member {
  user_id: Uuid
  name: string
  email: string
  avatar_url: string | null
  role: Role
  created_at: Timestamp
}

export type { Runner, RunnerRun } from '../contract/runners.ts'
export type { Invitation } from '../contract/people.ts'

// --- Agents ---------------------------------------------------------------------------------

export type AgentStatus = 'idle' | 'running' | 'paused' | 'pending_approval' | 'terminated' | 'error'

export interface Agent {
  id: Uuid
  company_id: Uuid | null
  name: string
  title: string | null
  role: string | null
  adapter: string | null
  /** Per-adapter settings (`{}` when none): model, command, args, env, max_turns, url, timeout_seconds, secret_env. */
  adapter_config: AdapterConfig
  reports_to_id: Uuid | null
  heartbeat_cron: string | null
  instructions: string | null
  capabilities: unknown[] | null
  monthly_budget_cents: number
  spend_mtd_cents?: number
  open_tasks?: number
  last_activity: Timestamp | null
  avatar_seed: number
  status: AgentStatus
  created_at: Timestamp | null
}

export interface AdapterConfig {
  model?: string
  command?: string
  args?: string[]
  env?: string[]
  max_turns?: number
  url?: string
  timeout_seconds?: number
  secret_env?: string
}

export interface AgentFields {
  name?: string
  title?: string | null
  role?: string | null
  adapter?: string | null
  adapter_config?: AdapterConfig
  reports_to_id?: Uuid | null
  heartbeat_cron?: string | null
  instructions?: string | null
  capabilities?: unknown[] | null
  monthly_budget_cents?: number
}

export type AgentHire = AgentFields & { name: string; request_approval?: boolean }
export type AgentUpdate = AgentFields

export interface OrgNode {
  agent: Agent
  reports: OrgNode[]
}

export interface WakeRequest {
  task_id?: Uuid
  reason?: string
}

// --- Tasks and comments ---------------------------------------------------------------------

export type TaskStatus = 'backlog' | 'todo' | 'in_progress' | 'in_review' | 'blocked' | 'done' | 'cancelled'
export type TaskPriority = 'urgent' | 'high' | 'medium' | 'low' | 'none'
export const TASK_STATUSES: readonly TaskStatus[] = ['backlog', 'todo', 'in_progress', 'in_review', 'blocked', 'done', 'cancelled']
export const TASK_PRIORITIES: readonly TaskPriority[] = ['urgent', 'high', 'medium', 'low', 'none']

export interface Task {
  id: Uuid
  key: string
  number: number
  title: string
  description: string | null
  status: TaskStatus
  priority: TaskPriority
  assignee_agent_id: Uuid | null
  project_id: Uuid | null
  goal_id: Uuid | null
  parent_id: Uuid | null
  due_date: Timestamp | null
  sort_order: number
  created_by_agent_id: Uuid | null
  created_by_user_id: Uuid | null
  started_at: Timestamp | null
  completed_at: Timestamp | null
  created_at: Timestamp | null
  updated_at: Timestamp | null
}

export interface TaskCreate {
  title: string
  description?: string | null
  status?: TaskStatus
  priority?: TaskPriority
  assignee_agent_id?: Uuid | null
  project_id?: Uuid | null
  goal_id?: Uuid | null
  parent_id?: Uuid | null
  due_date?: Timestamp | null
  /** Acting as the agent of this running run. */
  run_id?: Uuid
}

export type TaskUpdate = Partial<TaskCreate> & { sort_order?: number }

export interface TaskFilters {
  status?: TaskStatus | TaskStatus[]
  assignee_agent_id?: Uuid
  project_id?: Uuid
  goal_id?: Uuid
  parent_id?: Uuid
  q?: string
  created_by?: 'me'
  limit?: number
}

export type CommentKind = 'comment' | 'question' | 'plan'

export interface Comment {
  id: Uuid
  task_id: Uuid
  kind: CommentKind | 'system'
  body: string
  author_user_id: Uuid | null
  author_agent_id: Uuid | null
  run_id: Uuid | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface CommentCreate {
  body: string
  kind?: CommentKind
  run_id?: Uuid
}

// --- Goals, projects, routines --------------------------------------------------------------

export type GoalStatus = 'planned' | 'active' | 'achieved' | 'abandoned'

export interface Goal {
  id: Uuid
  title: string
  description: string | null
  status: GoalStatus
  parent_id: Uuid | null
  owner_agent_id: Uuid | null
  target_date: Timestamp | null
  tasks_done?: number
  tasks_total?: number
  created_at: Timestamp | null
}

export interface GoalCreate {
  title: string
  description?: string | null
  status?: GoalStatus
  parent_id?: Uuid | null
  owner_agent_id?: Uuid | null
  target_date?: Timestamp | null
}

export type GoalUpdate = Partial<GoalCreate>

export type ProjectStatus = 'active' | 'paused' | 'completed' | 'archived'

export interface Project {
  id: Uuid
  company_id: Uuid
  name: string
  description: string | null
  repository: string | null
  monthly_budget_cents: number
  status: ProjectStatus
  created_at: Timestamp
  updated_at: Timestamp
}

export interface ProjectCreate {
  name: string
  description?: string | null
  repository?: string | null
  monthly_budget_cents?: number
}

export type ProjectUpdate = Partial<ProjectCreate> & { status?: ProjectStatus }

export interface Routine {
  id: Uuid
  agent_id: Uuid
  project_id: Uuid | null
  title: string
  description: string | null
  cron: string
  enabled: boolean
  last_run_at: Timestamp | null
  created_at: Timestamp | null
}

export interface RoutineCreate {
  agent_id: Uuid
  title: string
  cron: string
  description?: string | null
  enabled?: boolean
  project_id?: Uuid | null
}

export type RoutineUpdate = Partial<RoutineCreate>

export interface RoutineTrigger {
  routine: Routine
  task: Task
  run: Run
}

// --- Runs -----------------------------------------------------------------------------------

export type RunStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled'
export type RunTrigger = 'manual' | 'assignment' | 'routine' | 'heartbeat'
export type TranscriptRole = 'agent' | 'tool' | 'system' | 'user'

export interface TranscriptEntry {
  timestamp: Timestamp
  role: TranscriptRole
  text: string
}

export interface Run {
  id: Uuid
  agent_id: Uuid
  task_id: Uuid | null
  routine_id: Uuid | null
  runner_id: string | null
  status: RunStatus
  trigger: RunTrigger
  tokens_in: number
  tokens_out: number
  cost_cents: number
  summary: string | null
  error: string | null
  /** The agent CLI's session id, when its adapter reported one. */
  session_id: string | null
  heartbeat_at: Timestamp | null
  started_at: Timestamp | null
  ended_at: Timestamp | null
  created_at: Timestamp | null
  /** Only on the single-run read. */
  transcript?: TranscriptEntry[]
}

export interface RunFilters {
  agent_id?: Uuid
  task_id?: Uuid
  status?: RunStatus
  limit?: number
}

export interface ClaimRequest {
  runner_id: string
  agent_ids?: Uuid[]
  adapters?: string[]
  /** The runner's CLI versions by program, e.g. {"claude": "2.0.14"}. */
  versions?: Record<string, string>
}

/** What a runner gets with a claimed run. */
export interface RunContext {
  run: Run
  agent: Agent
  manager: Agent | null
  company: Company
  task: (Task & { comments: Comment[] }) | null
  goal_chain: Goal[]
  project: Project | null
  lease_seconds: number
  /** The agent's credential for this run (the claim answer only; GET /api/run does not repeat it). */
  run_token?: string
}

export interface RunReport {
  runner_id: string
  status?: 'running' | 'succeeded' | 'failed'
  /** Running totals for the run, not increments. */
  tokens_in?: number
  tokens_out?: number
  cost_cents?: number
  summary?: string | null
  error?: string | null
  session_id?: string | null
  /** New entries, appended. */
  transcript?: { timestamp?: Timestamp; role?: TranscriptRole; text: string }[]
}

// --- Approvals ------------------------------------------------------------------------------

export type ApprovalStatus = 'pending' | 'approved' | 'rejected'
export type ApprovalType = 'hire_agent' | 'budget_override' | 'action'

export interface Approval {
  id: Uuid
  company_id: Uuid
  type: ApprovalType
  status: ApprovalStatus
  agent_id: Uuid | null
  payload: Record<string, unknown>
  requested_by_user_id: Uuid | null
  requested_by_agent_id: Uuid | null
  decided_by_user_id: Uuid | null
  decided_at: Timestamp | null
  decision_note: string | null
  new_budget_cents: number | null
  created_at: Timestamp
}

export interface Decision {
  decision_note?: string
  /** Approve only. */
  new_budget_cents?: number
}

// --- Insights -------------------------------------------------------------------------------

export interface AuditEvent {
  id: Uuid
  actor_type: 'user' | 'agent' | 'system'
  actor_name: string
  actor_user_id: Uuid | null
  actor_agent_id: Uuid | null
  verb: string
  entity_type: string
  entity_id: Uuid | null
  label: string | null
  changes: Record<string, [unknown, unknown]>
  run_id: Uuid | null
  created_at: Timestamp
}

export interface ActivityQuery {
  limit?: number
  /** The created_at of the last row already held. */
  before?: Timestamp
}

export interface DashboardDay {
  date: string
  cost_cents: number
  runs_failed: number
  runs_succeeded: number
  tasks_completed: number
  tasks_created: number
}

export interface Dashboard {
  agents_total: number
  agents_running: number
  agents_paused: number
  tasks_blocked: number
  tasks_in_progress: number
  pending_approvals: number
  tasks_by_status: Record<string, number>
  tasks_by_priority: Record<string, number>
  spend_mtd_cents: number
  monthly_budget_cents: number
  range_days: number
  series: DashboardDay[]
  active_runs: Run[]
  for_you: { blocked_tasks: number; open_tasks: number; recent: Task[] } | null
}

export interface Costs {
  month: string
  total_cents: number
  budget_cents: number
  by_agent: { agent_id: Uuid; name: string; cost_cents: number; tokens_in: number; tokens_out: number; runs: number }[]
  by_project: { project_id: Uuid; name: string; cost_cents: number }[]
  by_day: { date: string; cost_cents: number }[]
}

export interface Inbox {
  approvals: Approval[]
  tasks: Task[]
  failed_runs: Run[]
}

// --- Service --------------------------------------------------------------------------------

export interface ServiceInfo {
  service: string
  version: string
  environment: string
  docs: string | null
}

export interface Health {
  status: 'healthy' | 'unhealthy'
  service: string
  version: string
  environment: string
  timestamp: number
  database?: string
}

// --- Live events ----------------------------------------------------------------------------

/** An invalidation signal: which entity changed (`type` is `<entity>.<verb>`), not its new state. */
export interface LiveEvent {
  type: string
  id: string | null
  agent_id?: string | null
  status?: string | null
  [extra: string]: string | null | undefined
}

// --- Operations: webhooks, export and import ----------------------------------------------------

export type { Webhook, WebhookCreate, WebhookDelivery, WebhookPatch, WebhookWithSecret, WebhookPayload } from '../contract/webhooks.ts'
export type { CompanyExport, CompanyImport, Template } from '../contract/company-export.ts'
