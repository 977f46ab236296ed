// The Run record as the API returns it (src/contract/runs.ts). Lists never carry the transcript.
export {
  FINISHED_RUN_STATUSES, isFinished, RUN_STATUSES, RUN_TRIGGERS, type Run, type RunStatus, type RunTrigger, type TranscriptEntry,
} from '../../contract/runs.ts'

/**
 * "Run `alias` is a running run of agent `agent`", written as the unique index
 * runs_one_running_per_agent holds it (migration 129), so that one probe of that index answers.
 * Asked as status = 'running', statistics taken while nothing ran had PostgreSQL read the
 * company's running runs instead, from an index it believed empty.
 */
export function runningAgentIs(alias: string, agent: string): string {
  return `(CASE WHEN ${alias}.status = 'running' THEN ${alias}.agent_id END) = ${agent}`
}

/**
 * "The run found by id is running", as a statement that finds a run by its id (or among one
 * task's runs) asks it: the status given as a value the planner sees only when the statement
 * runs (docs/ARCHITECTURE.md). Written as status = 'running', it matched the partial indexes on
 * that status, which statistics taken while nothing ran call empty, and one of them looked
 * cheaper than the primary key (or the task's index): the lookup read the company's running
 * runs, or every company's.
 */
export function foundRunIsRunning(alias?: string): string {
  return `${alias ? `${alias}.` : ''}status = (SELECT 'running'::text)`
}

/** Columns of a Run without its transcript; prefix with an alias via runColumns('r'). */
export function runColumns(alias?: string): string {
  const p = alias ? `${alias}.` : ''
  return ['id', 'company_id', 'agent_id', 'task_id', 'routine_id', 'runner_id', 'status', 'trigger', 'tokens_in',
    'tokens_out', 'cost_cents', 'summary', 'error', 'session_id', 'purpose', 'changes', 'checks', 'heartbeat_at', 'started_at', 'ended_at', 'created_at',
    'not_before', 'billing']
    .map((c) => p + c)
    .join(', ')
}

/**
 * How many of a transcript's last entries a single-run answer carries (API-DECISIONS.md "Limits
 * that protect every company"); GET /runs/{run_id}/transcript pages through all of them.
 */
export const TRANSCRIPT_TAIL = 2000

/**
 * The transcript of a single-run answer, as columns of a query that reads `runs` as `alias`:
 * the entries from position `from` (an SQL expression, from 0) on, but only the last
 * TRANSCRIPT_TAIL, as `transcript`; where that starts, `transcript_from`; how many there are in
 * all, `transcript_count` and `transcript_total` (the name the pages use); and when retention
 * trimmed it. The entries are rows of run_transcript_entries (migration 220), read through its
 * primary key from the position on, so a long transcript's head is never read.
 */
export function transcriptColumns(alias: string, from = '0'): string {
  const start = `greatest(${from}, ${alias}.transcript_count - ${TRANSCRIPT_TAIL})`
  return `${alias}.transcript_trimmed_at, ${alias}.transcript_count, ${alias}.transcript_count AS transcript_total,
    ${start} AS transcript_from,
    (SELECT coalesce(jsonb_agg(e.entry ORDER BY e.seq), '[]'::jsonb) FROM run_transcript_entries e
      WHERE e.run_id = ${alias}.id AND e.seq > ${start}) AS transcript`
}

/**
 * A list of runs (`sql` selects runColumns()) with each run's task named, `task_key` and
 * `task_title` (null without a task), in `order`. The task is looked up by its id for each
 * listed run: OFFSET 0 keeps the lookup a subquery of the run, where as a join PostgreSQL may
 * plan it as a scan of the company's tasks (a generic plan does not know the list's limit).
 */
export function namingTasks(sql: string, order = 'r.created_at DESC, r.id DESC'): string {
  return `SELECT r.*, named.key AS task_key, named.title AS task_title
    FROM (${sql}) r
    LEFT JOIN LATERAL (
      SELECT c.task_prefix || '-' || t.number AS key, t.title FROM tasks t JOIN companies c ON c.id = t.company_id
       WHERE t.id = r.task_id OFFSET 0
    ) named ON true
   ORDER BY ${order}`
}
