import { type Static, Type } from 'typebox'
import { Agent } from './agents.ts'
import { Comment } from './comments.ts'
import { Company } from './companies.ts'
import { MAX_AMOUNT, Nullable, NullableUuid, OrNull, StringEnum, Timestamp, Uuid } from './common.ts'
import { DocumentMention, RunMemory } from './documents.ts'
import { ChainGoal } from './goals.ts'
import { RunnerVersions } from './runners.ts'
import { Project } from './projects.ts'
import { Skill } from './skills.ts'
import { Task } from './tasks.ts'
import { Changes, CheckResult } from './work.ts'

// Runs and the runner protocol: claim, heartbeat, report, cancel, expire-stale; waking an agent.

export const RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const
export const RunStatus = StringEnum(RUN_STATUSES)
export type RunStatus = Static<typeof RunStatus>
export const FINISHED_RUN_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'cancelled']
export const RUN_TRIGGERS = ['manual', 'assignment', 'routine', 'heartbeat'] as const
export const RunTrigger = StringEnum(RUN_TRIGGERS)
export type RunTrigger = Static<typeof RunTrigger>
export const TRANSCRIPT_ROLES = ['agent', 'tool', 'system', 'user'] as const
export const TranscriptRole = StringEnum(TRANSCRIPT_ROLES)
export type TranscriptRole = Static<typeof TranscriptRole>

export const RUN_BILLINGS = ['api', 'plan'] as const
export const RunBilling = StringEnum(RUN_BILLINGS)
export type RunBilling = Static<typeof RunBilling>

/** Which provider's limit a run met: `rate_limit` (requests or tokens per minute), `usage_limit` (a quota or a plan's allowance). */
export const PROVIDER_LIMIT_KINDS = ['rate_limit', 'usage_limit'] as const
const Provider = Type.String({ minLength: 1, maxLength: 60, pattern: '^[a-z0-9][a-z0-9._-]*$' })

/**
 * On a failed finishing report: the run ended because its provider refused for a limit. The
 * run is not the agent's failure: the agent does not become `error`, and a replacement run is
 * queued that waits for `reset_at` (its `not_before`; null: a minute from now).
 */
export const ProviderLimit = Type.Object({
  provider: Provider,
  kind: StringEnum(PROVIDER_LIMIT_KINDS),
  reset_at: Nullable(Type.String({ format: 'iso-date-time' })),
})
export type ProviderLimit = Static<typeof ProviderLimit>

/** A provider credential a runner is not using until `until` (its limit's reset). */
export const Cooldown = Type.Object({ provider: Provider, until: Type.String({ format: 'iso-date-time' }) })
export type Cooldown = Static<typeof Cooldown>
const Cooldowns = Type.Array(Cooldown, { maxItems: 20 })

export function isFinished(status: string): boolean {
  return (FINISHED_RUN_STATUSES as readonly string[]).includes(status)
}

export const TranscriptEntry = Type.Object({ timestamp: Timestamp, role: TranscriptRole, text: Type.String() })
export type TranscriptEntry = Static<typeof TranscriptEntry>

/**
 * Why a run was queued, in words: its first transcript entry when that is a system entry written
 * before the run started (a wake's or a delegation's reason, written with the queued run); the
 * entries after it are the runner's and the agent's own. Null when there is none.
 */
export function wakeReason(run: { transcript?: TranscriptEntry[]; started_at?: string | null }): string | null {
  const first = run.transcript?.[0]
  if (first?.role !== 'system' || !run.started_at) return null
  return Date.parse(first.timestamp) <= Date.parse(run.started_at) ? first.text.trim() : null
}

/** The quoted words of another agent that came with the wake reason (a `user` entry right after it), or null. */
export function wakeQuote(run: { transcript?: TranscriptEntry[]; started_at?: string | null }): string | null {
  const second = run.transcript?.[1]
  if (!wakeReason(run) || second?.role !== 'user') return null
  return Date.parse(second.timestamp) <= Date.parse(run.started_at!) ? second.text.trim() : null
}

export const Run = Type.Object({
  id: Uuid,
  company_id: Uuid,
  agent_id: Uuid,
  task_id: OrNull(Uuid),
  routine_id: OrNull(Uuid),
  runner_id: OrNull(Type.String()),
  status: RunStatus,
  trigger: RunTrigger,
  tokens_in: Type.Integer(),
  tokens_out: Type.Integer(),
  cost_cents: Type.Integer(),
  summary: OrNull(Type.String()),
  error: OrNull(Type.String()),
  heartbeat_at: OrNull(Timestamp),
  started_at: OrNull(Timestamp),
  ended_at: OrNull(Timestamp),
  created_at: Timestamp,
  /** The agent CLI's session id, as the runner reported it. */
  session_id: OrNull(Type.String()),
  /** `merge`: the run merges its task's approved branch (merge_on_approve) instead of starting the agent. */
  purpose: StringEnum(['work', 'merge']),
  /** What the run changed on its task's branch (projects with a repository), else null. */
  changes: OrNull(Changes),
  /** The project's checks run after the agent, in order; empty when none ran. */
  checks: Type.Array(CheckResult),
  /**
   * A run queued to replace one its provider refused for a quota or rate limit: no runner claims
   * it before this instant (the limit's reset). Null for every other run.
   */
  not_before: OrNull(Timestamp),
  /** How the run's usage is paid: `api` (a metered key) or `plan` (a subscription login, cost_cents the list-price equivalent). */
  billing: RunBilling,
  /**
   * Only on lists of runs (the runs list, the dashboard's active runs, the inbox's failed runs):
   * the key and title of the run's task, null when it has none (or it was deleted), so that a
   * list names its tasks without a request per task.
   */
  task_key: Type.Optional(OrNull(Type.String())),
  task_title: Type.Optional(OrNull(Type.String())),
  /**
   * On GET of one run and on the runs list: why a queued run waits, in words, when no runner can
   * take it (none online, or none that runs its agent's adapter); null otherwise.
   */
  waiting_reason: Type.Optional(OrNull(Type.String())),
  /**
   * Only on single-run answers (get, claim, wake). On get and wake, the last 2,000 entries at most
   * (from `transcript_from` on); GET /runs/{run_id}/transcript pages through all of them.
   */
  transcript: Type.Optional(Type.Array(TranscriptEntry)),
  /** With the transcript: when retention (TRANSCRIPT_RETENTION_DAYS) emptied it, else null. */
  transcript_trimmed_at: Type.Optional(OrNull(Timestamp)),
  /**
   * On GET of one run (and a wake's answer): the number of entries the transcript has in all.
   * Asked with `transcript_from`, the answer's transcript holds only the entries from that index on.
   */
  transcript_count: Type.Optional(Type.Integer()),
  /** With transcript_count: the same number, by the name the transcript pages use. */
  transcript_total: Type.Optional(Type.Integer()),
  /**
   * With transcript_count: the index of the answer's first transcript entry. The `transcript_from`
   * asked for (0 without), or later when more than 2,000 entries follow it: then the entries
   * between are left out, and GET /runs/{run_id}/transcript reads them.
   */
  transcript_from: Type.Optional(Type.Integer()),
})
export type Run = Static<typeof Run>

/** GET /runs/{run_id}/transcript: the entries after the first `after`, at most `limit` of them. */
export const TranscriptPageQuery = Type.Object({
  after: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647, default: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2000, default: 500 })),
})
export const TranscriptPage = Type.Object({
  entries: Type.Array(TranscriptEntry),
  /** How many entries the transcript has in all. */
  transcript_total: Type.Integer(),
})
export type TranscriptPage = Static<typeof TranscriptPage>

/**
 * A viewer that holds a run's first entries asks for the rest only: a long run's transcript is
 * hundreds of KB, and its page fetches the run again after every report.
 */
export const GetRunQuery = Type.Object({
  transcript_from: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647 })),
})
export type GetRunQuery = Static<typeof GetRunQuery>

const RunnerId = Type.String({ minLength: 1, maxLength: 100 })
const Count = Type.Integer({ minimum: 0, maximum: MAX_AMOUNT })

export const ListRunsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  agent_id: Type.Optional(Uuid),
  task_id: Type.Optional(Uuid),
  status: Type.Optional(Type.Array(RunStatus)),
})
/** As a client passes them: one status or several. */
export type RunFilters = Omit<Static<typeof ListRunsQuery>, 'status'> & { status?: RunStatus | RunStatus[] }

/** The optional lists narrow which queued runs this runner takes. */
export const ClaimBody = Type.Object({
  runner_id: RunnerId,
  agent_ids: Type.Optional(Nullable(Type.Array(Uuid))),
  adapters: Type.Optional(Nullable(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50 }))),
  /** The runner's CLI versions by program, shown in the runners list. */
  versions: Type.Optional(Nullable(Type.Unsafe<RunnerVersions>(RunnerVersions))),
  /** The provider credentials the runner rests until their reset (shown in the runners list). */
  cooldowns: Type.Optional(Cooldowns),
})
export type ClaimRequest = Static<typeof ClaimBody>

export const HeartbeatBody = Type.Object({ runner_id: RunnerId, cooldowns: Type.Optional(Cooldowns) })

/** Token and cost figures are running totals for the run (absolute), not increments. */
export const ReportBody = Type.Object({
  runner_id: RunnerId,
  /** `queued` passes the schema so that it can answer INVALID_STATE rather than 422. */
  status: Type.Optional(StringEnum(['queued', 'running', 'succeeded', 'failed'])),
  tokens_in: Type.Optional(Count),
  tokens_out: Type.Optional(Count),
  cost_cents: Type.Optional(Count),
  summary: Type.Optional(Nullable(Type.String())),
  error: Type.Optional(Nullable(Type.String())),
  /** The CLI's session id (API-DECISIONS.md "Agent settings"). */
  session_id: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  /** The run's work products, once known (contract/work.ts). */
  changes: Type.Optional(Nullable(Changes)),
  checks: Type.Optional(Type.Array(CheckResult, { maxItems: 20 })),
  /** With status `failed` only: the run ended on a provider's limit (ProviderLimit above). */
  limit: Type.Optional(ProviderLimit),
  /** How the run's usage is paid (Run.billing). */
  billing: Type.Optional(RunBilling),
  /** New entries, appended; a missing timestamp is set by the server, a missing role is `agent`. */
  transcript: Type.Optional(
    Type.Array(
      Type.Object({
        timestamp: Type.Optional(Nullable(Type.String({ format: 'iso-date-time' }))),
        role: Type.Optional(TranscriptRole),
        text: Type.String(),
      }),
    ),
  ),
})
export type RunReport = Static<typeof ReportBody>

/** Optional body: no body wakes the agent without a task. */
export const WakeBody = Type.Unsafe<{ task_id?: string | null; reason?: string | null; fresh_session?: boolean } | null>({
  type: ['object', 'null'],
  properties: {
    task_id: NullableUuid,
    reason: Nullable(Type.String()),
    fresh_session: Type.Boolean({ description: 'Start a new CLI session instead of resuming the last one of the agent on the task' }),
  },
})
export type WakeRequest = { task_id?: string | null; reason?: string | null; fresh_session?: boolean }

export const ExpiredRuns = Type.Object({ expired: Type.Array(Uuid) })

/** What a runner gets with a claimed run. */
export const RunContext = Type.Object({
  run: Run,
  agent: Agent,
  manager: OrNull(Agent),
  company: Company,
  task: OrNull(Type.Object({ ...Task.properties, comments: Type.Array(Comment) })),
  goal_chain: Type.Array(ChainGoal),
  project: OrNull(Project),
  lease_seconds: Type.Integer(),
  /** Documents pinned to the company or to the task's project, named in the prompt (read on demand). */
  documents: Type.Array(DocumentMention),
  /** The agent's memory document (its beginning), given at the start of each run. */
  memory: OrNull(RunMemory),
  /** The agent's skills, which the runner installs for this run only. */
  skills: Type.Array(Skill),
  /** A person asked for a new CLI session: the last one of the agent on the task is not resumed. */
  fresh_session: Type.Boolean(),
  /** A bearer credential for this run only (API-DECISIONS.md "Agents acting through a run"). */
  run_token: Type.String(),
})
export type RunContext = Static<typeof RunContext>
