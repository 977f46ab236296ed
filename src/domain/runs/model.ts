// The Run record as the API returns it. Lists never carry the transcript (it is unbounded).

export const RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const
export type RunStatus = (typeof RUN_STATUSES)[number]
export const FINISHED_RUN_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'cancelled']
export const RUN_TRIGGERS = ['manual', 'assignment', 'routine', 'heartbeat'] as const
export type RunTrigger = (typeof RUN_TRIGGERS)[number]

export interface Run {
  id: string
  company_id: string
  agent_id: string
  task_id: string | null
  routine_id: string | null
  runner_id: string | null
  status: RunStatus
  trigger: RunTrigger
  tokens_in: number
  tokens_out: number
  cost_cents: number
  summary: string | null
  error: string | null
  /** The agent CLI's session id, as the runner reported it (API-DECISIONS.md). */
  session_id: string | null
  heartbeat_at: string | null
  started_at: string | null
  ended_at: string | null
  created_at: string
  transcript?: TranscriptEntry[]
  /** With the transcript: when retention (TRANSCRIPT_RETENTION_DAYS) emptied it, else null. */
  transcript_trimmed_at?: string | null
}

export interface TranscriptEntry {
  timestamp: string
  role: 'agent' | 'tool' | 'system' | 'user'
  text: string
}

/** Columns of a Run without its transcript; prefix with an alias via runColumns('r'). */
export function runColumns(alias?: string): string {
  const p = alias ? `${alias}.` : ''
  return ['id', 'company_id', 'agent_id', 'task_id', 'routine_id', 'runner_id', 'status', 'trigger', 'tokens_in',
    'tokens_out', 'cost_cents', 'summary', 'error', 'session_id', 'heartbeat_at', 'started_at', 'ended_at', 'created_at']
    .map((c) => p + c)
    .join(', ')
}

/** Columns of a Run including its transcript and whether retention trimmed it (single-run answers). */
export function runWithTranscriptColumns(alias?: string): string {
  const p = alias ? `${alias}.` : ''
  return `${runColumns(alias)}, ${p}transcript, ${p}transcript_trimmed_at`
}

export function isFinished(status: string): boolean {
  return (FINISHED_RUN_STATUSES as readonly string[]).includes(status)
}
