import type { ProviderLimit, RunReport } from '../../contract/runs.ts'
import type { AppContext } from '../../server/context.ts'
import { type Tx, write, writeHot } from '../../server/db/write.ts'
import { AppError, invalidField, invalidState, notFound } from '../../server/errors.ts'
import type { Actor } from '../../server/actor.ts'
import { actorColumns } from '../audit/record.ts'
import { expireStaleRuns } from './expire.ts'
import { deferUntil, limitError, queueReplacement } from './defer.ts'
import { publishRunUpdated, runEnded, runUpdatedEvent } from './finish.ts'
import { foundRunIsRunning, isFinished, type Run, runColumns, runningAgentIs, type TranscriptEntry } from './model.ts'

export type { RunReport } from '../../contract/runs.ts'

/** What follows a finished run in its report's transaction, from above (a failed check sending the work back). */
export type AfterFinish = (tx: Tx, run: Run) => Promise<void>

/**
 * The lease guard shared by reports and heartbeats: the run is running, held by this runner,
 * and its last sign of life is within the lease by the database clock. $1 run, $2 company,
 * $3 runner, $4 lease seconds.
 */
const HELD_BY_RUNNER = `id = $1 AND company_id IS NOT DISTINCT FROM $2 AND ${foundRunIsRunning()} AND runner_id = $3
  AND coalesce(heartbeat_at, started_at) >= now() - make_interval(secs => $4)`

/**
 * A runner's report: running totals of tokens and cost (absolute, so a retried report is
 * harmless), summary and error, new transcript entries appended (missing timestamps are the
 * database's now, missing roles `agent`), and optionally a new status. Refreshes the lease and
 * publishes `run.updated`. Answers the Run without its transcript, which is unbounded.
 */
export async function reportRun(ctx: AppContext, companyId: string, runId: string, report: RunReport, actor: Actor, afterFinish?: AfterFinish): Promise<Run> {
  if (report.status === 'queued') {
    await loadRunState(ctx, companyId, runId)
    throw invalidState('A run never goes back to queued')
  }
  if (report.limit && report.status !== 'failed') {
    throw invalidField('body', 'limit', 'limit goes with status failed: it says why the run ended', report.limit)
  }
  const entries = (report.transcript ?? []).map((e) => ({ timestamp: e.timestamp ?? null, role: e.role ?? 'agent', text: e.text }))
  const has = (field: keyof RunReport) => Object.prototype.hasOwnProperty.call(report, field)
  const params = [
    runId, companyId, report.runner_id, ctx.config.runLeaseSeconds,
    report.status ?? null, report.tokens_in ?? null, report.tokens_out ?? null, report.cost_cents ?? null,
    has('summary'), report.summary ?? null, has('error'), report.error ?? null,
    JSON.stringify(entries), report.session_id ?? null,
    has('changes') ? JSON.stringify(report.changes) : null, report.checks ? JSON.stringify(report.checks) : null,
    report.billing ?? null,
  ]
  const run = report.status === 'succeeded' || report.status === 'failed'
    ? await finishingReport(ctx, companyId, params, actor, afterFinish, report.limit ?? null)
    : await progressReport(ctx, companyId, params)
  if (run) return run
  throw await whyNotHeld(ctx, companyId, runId, 'report')
}

/**
 * The run's changes from a report; parameters as reportRun builds them. Its new transcript
 * entries are APPENDED, whose statement this UPDATE opens as the CTE `run`.
 */
const REPORTED = `UPDATE runs SET
    status = coalesce($5, status),
    tokens_in = coalesce($6, tokens_in),
    tokens_out = coalesce($7, tokens_out),
    cost_cents = coalesce($8, cost_cents),
    summary = CASE WHEN $9::boolean THEN $10 ELSE summary END,
    error = CASE WHEN $11::boolean THEN $12 ELSE error END,
    session_id = coalesce($14, session_id),
    changes = CASE WHEN $15::jsonb IS NULL THEN changes ELSE nullif($15::jsonb, 'null'::jsonb) END,
    checks = coalesce($16::jsonb, checks),
    billing = coalesce($17, billing),
    transcript_count = transcript_count + jsonb_array_length($13::jsonb),
    heartbeat_at = now(),
    ended_at = CASE WHEN $5 IN ('succeeded', 'failed') THEN now() ELSE ended_at END,
    updated_at = now()
  WHERE ${HELD_BY_RUNNER}`

/**
 * The report's new transcript entries, written after the run's last (migration 220): the CTE
 * `run` (REPORTED, returning transcript_count) has raised transcript_count by their number while
 * holding the run's row, so they take the positions just below it, whatever other writers of the
 * run did before. Missing timestamps are the database's now(). An append writes these rows only,
 * so it costs the same at any length of the transcript.
 */
const APPENDED = `appended AS (
    INSERT INTO run_transcript_entries (run_id, seq, entry)
    SELECT run.id, run.transcript_count - jsonb_array_length($13::jsonb) + x.n,
           CASE WHEN x.e->>'timestamp' IS NULL THEN jsonb_set(x.e, '{timestamp}', to_jsonb(now())) ELSE x.e END
      FROM run, jsonb_array_elements($13::jsonb) WITH ORDINALITY AS x(e, n)
  )`

/** REPORTED with APPENDED, as one statement answering the run's columns. */
const REPORTED_AND_APPENDED = `WITH run AS (${REPORTED} RETURNING ${runColumns()}, transcript_count), ${APPENDED}
  SELECT ${runColumns('run')} FROM run`

/**
 * A report that finishes the run of an agent without a monthly budget, as one statement sent
 * without BEGIN/COMMIT (it was five round trips on the runners' hot path): the run's changes,
 * its agent back to idle (error when it failed) when this was its last running run
 * (agent-status.ts; the statement's snapshot still sees this run running, so it is left out),
 * and the run's audit event (record_audit_events), labelled with the agent's name. Null when the
 * run is not held by the runner, its agent has a budget or pause_on_repeat, or it failed after its claim moved its
 * task (which goes back: runEnded), all of which need the transaction below.
 */
const FINISH_UNBUDGETED = `
  WITH run AS (
    ${REPORTED}
      -- A budget to check, or pause_on_repeat to look at (runEnded): transaction path.
      AND NOT EXISTS (SELECT 1 FROM agents WHERE id = runs.agent_id AND (monthly_budget_cents > 0 OR pause_on_repeat))
      -- A failed run that moved its task at claim puts the task back (runEnded): transaction path.
      AND NOT ($5 = 'failed' AND runs.task_status_before IS NOT NULL)
      -- A check that did not pass sends the work back (AfterFinish): transaction path.
      AND NOT jsonb_path_exists(coalesce($16::jsonb, runs.checks), '$[*] ? (@.status == "failed" || @.status == "timed_out")')
    RETURNING ${runColumns()}, transcript_count
  ), ${APPENDED}, moved AS (
    UPDATE agents a SET status = CASE WHEN run.status = 'failed' THEN 'error' ELSE 'idle' END,
                        last_activity = now(), updated_at = now()
      FROM run
     WHERE a.id = run.agent_id AND a.company_id IS NOT DISTINCT FROM $2 AND a.status = 'running'
       AND NOT EXISTS (SELECT 1 FROM runs r WHERE ${runningAgentIs('r', 'a.id')} AND r.id <> run.id)
  ), audit AS MATERIALIZED (
    SELECT record_audit_events($2, jsonb_build_array($18::jsonb || jsonb_build_object(
             'verb', run.status, 'entity_type', 'run', 'entity_id', run.id, 'label', a.name || ' (' || run.trigger || ')',
             'changes', jsonb_build_object('status', jsonb_build_array('running', run.status))
                          || CASE WHEN run.status = 'failed' AND run.error IS NOT NULL
                                  THEN jsonb_build_object('error', jsonb_build_array(NULL, run.error)) ELSE '{}'::jsonb END))) AS written
      FROM run JOIN agents a ON a.id = run.agent_id
  )
  -- Joining audit makes the statement write the event.
  SELECT ${runColumns('run')} FROM run, audit`

/**
 * A report that finishes the run: its audit event, the agent's move and, for an agent with a
 * budget, the budget check (runEnded), all in one transaction; one statement when the agent
 * has no budget (FINISH_UNBUDGETED). A run that ended on a provider's limit (defer.ts) takes
 * the transaction: the agent stays out of `error` and the replacement is queued with it.
 */
async function finishingReport(
  ctx: AppContext, companyId: string, params: unknown[], actor: Actor, afterFinish?: AfterFinish, limit: ProviderLimit | null = null,
): Promise<Run | null> {
  if (limit) return limitedReport(ctx, params, actor, limit, afterFinish)
  const unbudgeted = [...params, JSON.stringify(actorColumns(actor))]
  const run = await writeHot(ctx, companyId, async (tx) => {
    const finished = await tx.one<Run>(FINISH_UNBUDGETED, unbudgeted)
    if (finished) {
      tx.publish(companyId, { type: 'agent.updated', id: finished.agent_id })
      tx.publish(companyId, runUpdatedEvent(finished))
    }
    return finished
  })
  if (run) return run
  return write(ctx, async (tx) => {
    const run = await tx.one<Run>(REPORTED_AND_APPENDED, params)
    if (!run) return null
    await runEnded(tx, run, 'running', actor)
    await afterFinish?.(tx, run)
    publishRunUpdated(tx, run)
    return run
  })
}

/** The finishing report of a run its provider refused for a limit (defer.ts). */
async function limitedReport(ctx: AppContext, params: unknown[], actor: Actor, limit: ProviderLimit, afterFinish?: AfterFinish): Promise<Run | null> {
  return write(ctx, async (tx) => {
    const until = await deferUntil(tx, limit)
    // The error names provider, limit and reset unless the runner said it in its own words.
    const withError = [...params]
    if (!withError[10] || !withError[11]) {
      withError[10] = true
      withError[11] = limitError(limit, until)
    }
    const run = await tx.one<Run>(REPORTED_AND_APPENDED, withError)
    if (!run) return null
    const agentName = await runEnded(tx, run, 'running', actor, false, { limited: true })
    await afterFinish?.(tx, run)
    const replacement = await queueReplacement(tx, run, agentName, limit, until)
    publishRunUpdated(tx, run)
    publishRunUpdated(tx, replacement)
    return run
  })
}

/**
 * A progress report (no status, or `running`) audits nothing, so it is one statement sent
 * without BEGIN/COMMIT: the run's new totals and transcript and, for a `running` report, the
 * agent back to running when something moved it meanwhile (agent-status.ts), the run locked
 * before its agent as everywhere. `agent.updated` only when the agent moved.
 */
const PROGRESS = `WITH run AS (${REPORTED} RETURNING ${runColumns()}, transcript_count), ${APPENDED},
     agent AS (
       UPDATE agents SET status = 'running', last_activity = now(), updated_at = now()
        WHERE id = (SELECT agent_id FROM run) AND company_id IS NOT DISTINCT FROM $2 AND $5 = 'running' AND status IN ('idle', 'error')
       RETURNING id
     )
     SELECT ${runColumns('run')}, EXISTS (SELECT 1 FROM agent) AS agent_moved FROM run`

async function progressReport(ctx: AppContext, companyId: string, params: unknown[]): Promise<Run | null> {
  return writeHot(ctx, companyId, async (tx) => {
    const row = await tx.one<Run & { agent_moved: boolean }>(PROGRESS, params)
    if (!row) return null
    const { agent_moved: agentMoved, ...run } = row
    tx.publish(companyId, runUpdatedEvent(run))
    if (agentMoved) tx.publish(companyId, { type: 'agent.updated', id: run.agent_id })
    return run
  })
}

/** A heartbeat keeps the lease; it changes nothing else and publishes nothing. */
export async function heartbeatRun(ctx: AppContext, companyId: string, runId: string, runnerId: string): Promise<Run> {
  const run = await ctx.db.one<Run>(
    `UPDATE runs SET heartbeat_at = now() WHERE ${HELD_BY_RUNNER} RETURNING ${runColumns()}`,
    [runId, companyId, runnerId, ctx.config.runLeaseSeconds],
  )
  if (run) return run
  throw await whyNotHeld(ctx, companyId, runId, 'heartbeat')
}

async function loadRunState(ctx: AppContext, companyId: string, runId: string) {
  const row = await ctx.db.one<{ status: string; stale: boolean }>(
    `SELECT status, coalesce(heartbeat_at, started_at) < now() - make_interval(secs => $3) AS stale
       FROM runs WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2`,
    [runId, companyId, ctx.config.runLeaseSeconds],
  )
  if (!row) throw notFound('Run')
  return row
}

/**
 * The error for a report or heartbeat that did not hold the run. A run whose lease ran out is
 * failed on the spot (as a sweep would), so the runner learns the run is over: a report then
 * answers RUN_FINISHED, a heartbeat RUN_LEASE_LOST.
 */
async function whyNotHeld(ctx: AppContext, companyId: string, runId: string, what: 'report' | 'heartbeat'): Promise<AppError> {
  const state = await loadRunState(ctx, companyId, runId)
  let finished = isFinished(state.status)
  if (state.status === 'running' && state.stale) {
    await expireStaleRuns(ctx, companyId, runId)
    finished = true
  }
  if (finished && what === 'report') return new AppError('RUN_FINISHED', 'The run has already finished')
  if (what === 'heartbeat') return new AppError('RUN_LEASE_LOST', 'The run is not running or is held by another runner')
  return new AppError('RUN_LEASE_LOST', 'The run is held by another runner or was never claimed')
}
