// The one-click trial: a new company's first run done by a simulated agent inside the server, so
// that a person sees the whole loop (a run starting, its transcript, a reply on the task, the
// task moving to review) before installing a runner or an agent CLI. It is a run like any other,
// held by the runner id TRIAL_RUNNER_ID, claimed and reported through the same code as a
// runner's; nothing calls a model and it costs nothing. Only a company's first run may be one:
// the trial shows how work flows, real work needs a runner.
import type { AppContext } from '../../server/context.ts'
import { type Actor, systemActor } from '../../server/actor.ts'
import { write } from '../../server/db/write.ts'
import { invalidState, notFound } from '../../server/errors.ts'
import { addComment } from '../comments/service.ts'
import { updateTask } from '../tasks/update.ts'
import { claimRun } from './claim.ts'
import type { Run } from './model.ts'
import { reportRun } from './report.ts'

export const TRIAL_RUNNER_ID = 'Shopfloor trial (simulated)'
/** Between the trial's steps, so that the task page shows the run going (transcript growing). */
export const TRIAL_STEP_MS = 700

interface TrialSubject {
  status: string
  agent_id: string
  agent_name: string
  task_id: string | null
  task_key: string | null
  task_title: string | null
  succeeded_before: boolean
}

/**
 * Starts the trial of a queued run: checks it may be one, claims it (the agent's oldest queued
 * run, as a runner limited to that agent would) and answers it running; the simulated work then
 * goes on in the background and ends the run `succeeded` a few seconds later. Should the server
 * stop meanwhile, the run expires with its lease like a runner's.
 */
export async function startTrial(ctx: AppContext, companyId: string, runId: string): Promise<Run> {
  const subject = await ctx.db.one<TrialSubject>(
    `SELECT r.status, r.agent_id, a.name AS agent_name, r.task_id,
            CASE WHEN t.id IS NULL THEN NULL ELSE c.task_prefix || '-' || t.number END AS task_key, t.title AS task_title,
            EXISTS (SELECT 1 FROM runs d WHERE d.company_id = r.company_id AND d.status = 'succeeded') AS succeeded_before
       FROM runs r
       JOIN agents a ON a.id = r.agent_id
       JOIN companies c ON c.id = r.company_id
       LEFT JOIN tasks t ON t.id = r.task_id
      WHERE r.id = $1 AND r.company_id = $2`,
    [runId, companyId],
  )
  if (!subject) throw notFound('Run')
  if (subject.status !== 'queued') throw invalidState(`Only a queued run can be tried out; this one is ${subject.status}`)
  if (!subject.task_id) throw invalidState('The trial works on a task; this run has none')
  if (subject.succeeded_before) {
    throw invalidState('The trial is for a company\'s first run; this company has had one, so connect a runner for real work')
  }
  // The service starts and ends the run, named after the agent (SPEC.md actor types).
  const run = await claimRun(ctx, companyId, { runnerId: TRIAL_RUNNER_ID, agentIds: [subject.agent_id] }, systemActor(subject.agent_name))
  if (!run) throw invalidState(`${subject.agent_name} cannot start a run now (paused, or over a limit)`)
  void simulate(ctx, companyId, run, subject).catch(() => {
    // Lost to a cancel or the lease: the run already says how it ended.
  })
  return run
}

const pause = () => new Promise((resolve) => setTimeout(resolve, TRIAL_STEP_MS))

async function simulate(ctx: AppContext, companyId: string, run: Run, subject: TrialSubject): Promise<void> {
  const agent: Actor = { type: 'agent', agentId: subject.agent_id, name: subject.agent_name, runId: run.id }
  const lifecycle = systemActor(subject.agent_name)
  const report = (body: Parameters<typeof reportRun>[3]) => reportRun(ctx, companyId, run.id, body, lifecycle)
  // The task this run actually got (the agent's oldest queued run may be another than the one asked for).
  const task = await ctx.db.one<{ id: string; key: string; title: string }>(
    `SELECT t.id, c.task_prefix || '-' || t.number AS key, t.title FROM tasks t JOIN companies c ON c.id = t.company_id WHERE t.id = $1`,
    [run.task_id],
  )
  const subjectText = task ? `${task.key} "${task.title}"` : 'no task'
  await report({
    runner_id: TRIAL_RUNNER_ID,
    transcript: [{ role: 'system', text: 'Trial run: a simulated agent inside Shopfloor. No model is called and nothing is charged.' }],
  })
  await pause()
  await report({ runner_id: TRIAL_RUNNER_ID, transcript: [{ role: 'agent', text: `Reading ${subjectText} and its comments.` }] })
  await pause()
  await report({ runner_id: TRIAL_RUNNER_ID, transcript: [{ role: 'agent', text: `Working on ${subjectText} (simulated).` }] })
  await pause()
  const reply = `Simulated work done on ${subjectText}. This was a trial: connect a runner with an agent CLI for real work.`
  if (task) {
    // As a runner's agent does: the reply on the task and the task to review, while the run runs.
    await write(ctx, (tx) => addComment(tx, companyId, task.id, agent, { body: reply }))
    await write(ctx, (tx) => updateTask(tx, companyId, task.id, agent, { status: 'in_review' }))
  }
  await report({
    runner_id: TRIAL_RUNNER_ID, status: 'succeeded', summary: reply, tokens_in: 0, tokens_out: 0, cost_cents: 0,
    transcript: [{ role: 'agent', text: reply }],
  })
}
