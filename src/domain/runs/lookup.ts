import type { TranscriptPage } from '../../contract/runs.ts'
import type { Queryable } from '../../server/db/db.ts'
import { notFound } from '../../server/errors.ts'
import { namingTasks, type Run, type RunStatus, runColumns, transcriptColumns } from './model.ts'

export interface RunFilter {
  agent_id?: string
  task_id?: string
  status?: RunStatus[]
  limit: number
}

/**
 * Runs newest first, without transcripts, each with its task's key and title (namingTasks).
 * Every filter combination is served by an index that ends in the list's order, created_at
 * DESC, id DESC (runs_list, runs_agent, runs_task, runs_status; migration 130), so the newest
 * `limit` rows are read from the index and nothing else of a long history is touched. Several
 * statuses are one branch per status, each the newest `limit` of its runs_status range, merged:
 * `status = ANY(...)` gives no order, so it read and sorted every run of those statuses (nine in
 * ten of a company's runs for succeeded + failed). An agent or a task has runs of one company
 * only: the company is then given in a form no index takes (docs/ARCHITECTURE.md), so that the
 * agent's or task's index serves the page even when the statistics believe the company empty
 * (its list index, filtered, read every run of the company).
 */
export async function listRuns(q: Queryable, companyId: string, filter: RunFilter): Promise<Run[]> {
  const params: unknown[] = [companyId]
  const where = [filter.agent_id || filter.task_id ? 'company_id IS NOT DISTINCT FROM $1' : 'company_id = $1']
  if (filter.agent_id) where.push(`agent_id = $${params.push(filter.agent_id)}`)
  if (filter.task_id) where.push(`task_id = $${params.push(filter.task_id)}`)
  const limit = `$${params.push(filter.limit)}`
  const statuses = filter.status ? [...new Set(filter.status)] : [undefined]
  const branches = statuses.map((status) => {
    const conditions = status === undefined ? where : [...where, `status = $${params.push(status)}`]
    return `SELECT ${runColumns()} FROM runs WHERE ${conditions.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${limit}`
  })
  const newest = branches.length === 1
    ? branches[0]!
    : `SELECT * FROM (${branches.map((b) => `(${b})`).join(' UNION ALL ')}) r ORDER BY created_at DESC, id DESC LIMIT ${limit}`
  return q.many<Run>(namingTasks(newest), params)
}

/**
 * One run with its transcript's last entries (transcriptColumns), or 404; from `transcriptFrom`
 * on only, when given (the entries a viewer does not hold yet).
 */
export async function getRun(q: Queryable, companyId: string, runId: string, transcriptFrom = 0): Promise<Run> {
  const run = await q.one<Run>(
    `SELECT ${runColumns('r')}, ${transcriptColumns('r', '$3::int')}
       FROM runs r WHERE r.id = $1 AND r.company_id IS NOT DISTINCT FROM $2`,
    [runId, companyId, transcriptFrom],
  )
  if (!run) throw notFound('Run')
  return run
}

/**
 * A page of a run's transcript: the entries after the first `after`, at most `limit`, and how
 * many there are in all; 404 for a run of another company.
 */
export async function getTranscriptPage(q: Queryable, companyId: string, runId: string, after: number, limit: number): Promise<TranscriptPage> {
  const page = await q.one<TranscriptPage>(
    `SELECT r.transcript_count AS transcript_total,
            (SELECT coalesce(jsonb_agg(e.entry ORDER BY e.seq), '[]'::jsonb) FROM run_transcript_entries e
              WHERE e.run_id = r.id AND e.seq > $3::int AND e.seq <= $3::bigint + $4::int) AS entries
       FROM runs r WHERE r.id = $1 AND r.company_id IS NOT DISTINCT FROM $2`,
    [runId, companyId, after, limit],
  )
  if (!page) throw notFound('Run')
  return page
}
