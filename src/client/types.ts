// Records and request bodies of the public API, as the server sends and accepts them
// (snake_case JSON; timestamps are ISO 8601 strings; money is integer cents). They are the
// server's own schemas (src/contract/), named here the way clients use them.
import type { RunContext as ClaimAnswer } from '../contract/runs.ts'

export type Uuid = string
export type Timestamp = string

// --- Accounts
export type { Preferences, PreferencesPatch, Session, User } from '../contract/accounts.ts'
export type { ApiKey, CreatedApiKey } from '../contract/api-keys.ts'

// --- Companies and people
export type { Company, CompanyCreate, CompanyUpdate, Member, Role } from '../contract/companies.ts'
export type { Invitation } from '../contract/people.ts'
export type { Runner, RunnerRun } from '../contract/runners.ts'

// --- Agents
export type { AdapterConfig } from '../contract/adapter-config.ts'
export type { Agent, AgentFields, AgentHire, AgentStatus, AgentUpdate, OrgNode } from '../contract/agents.ts'
export type { WakeRequest } from '../contract/runs.ts'

// --- Tasks and comments
export { TASK_PRIORITIES, TASK_STATUSES } from '../contract/task-values.ts'
export type { Task, TaskCreate, TaskFilters, TaskPriority, TaskStatus, TaskUpdate } from '../contract/tasks.ts'
export type { Comment, CommentCreate, CommentKind } from '../contract/comments.ts'

// --- Goals, projects, routines
export type { Goal, GoalCreate, GoalStatus, GoalUpdate } from '../contract/goals.ts'
export type { Project, ProjectCreate, ProjectStatus, ProjectUpdate } from '../contract/projects.ts'
export type { Routine, RoutineCreate, RoutineTrigger, RoutineUpdate } from '../contract/routines.ts'

// --- Knowledge
export type { Document, DocumentCreate, DocumentListQuery, DocumentMention, DocumentUpdate, DocumentVersion, RunMemory } from '../contract/documents.ts'
export type { Skill, SkillCreate, SkillFile, SkillUpdate } from '../contract/skills.ts'

// --- Runs
export type {
  ClaimRequest, GetRunQuery, Run, RunFilters, RunReport, RunStatus, RunTrigger, TranscriptEntry, TranscriptRole,
} from '../contract/runs.ts'
export type { Cooldown, ProviderLimit, RunBilling } from '../contract/runs.ts'
export type { Changes, ChangedFile, Check, CheckInput, CheckResult, ReviewDecision, ReviewRequest } from '../contract/work.ts'
/** What a runner gets with a claimed run; `run_token` is in the claim answer only (GET /api/run does not repeat it). */
export type RunContext = Omit<ClaimAnswer, 'run_token'> & { run_token?: string }

// --- Approvals
export type { Approval, ApprovalStatus, ApprovalType, Decision } from '../contract/approvals.ts'

// --- Insights
export type { ActivityQuery, AuditEvent } from '../contract/activity.ts'
export type { Costs, Dashboard, DashboardDay, Forecast, Inbox } from '../contract/insights.ts'

// --- Service and live events
export type { Health, ServiceInfo } from '../contract/service.ts'
export type { LiveEvent } from '../contract/events.ts'

// --- Operations: webhooks, export and import
export type { Webhook, WebhookCreate, WebhookDelivery, WebhookPatch, WebhookWithSecret, WebhookPayload } from '../contract/webhooks.ts'
export type { CompanyExport, CompanyImport, Template } from '../contract/company-export.ts'
