import type { Tx } from '../../server/db/write.ts'
import { AppError, invalidField, invalidState } from '../../server/errors.ts'
import { type Actor, systemActor } from '../../server/actor.ts'
import { isDormant } from '../../contract/agents.ts'
import type { ReviewRequest } from '../../contract/work.ts'
import { addComment } from '../comments/service.ts'
import { queueRun } from '../runs/queue.ts'
import { findTask } from '../tasks/find.ts'
import type { Task } from '../tasks/model.ts'
import { updateTask } from '../tasks/update.ts'

/**
 * A review of a task's work (API-DECISIONS.md "Work products"), by a person or by the
 * project's reviewer agent through its run: `approve` moves the task to `done`;
 * `request_changes` adds the comment, moves the task back to `todo` and queues an `assignment`
 * run for its assignee. An approval with the project's merge_on_approve queues the merge (queueMerge). Only a task `in_review` is reviewed. Audited as the task's move and the
 * comment; published as `task.updated` with `review` (the decision), which webhooks carry too.
 */
export async function reviewTask(tx: Tx, companyId: string, taskRef: string, actor: Actor, input: ReviewRequest): Promise<Task> {
  const task = await findTask(tx, companyId, taskRef, true)
  if (actor.type === 'agent') {
    const project = task.project_id
      ? await tx.one<{ reviewer_agent_id: string | null }>('SELECT reviewer_agent_id FROM projects WHERE id = $1', [task.project_id])
      : null
    if (project?.reviewer_agent_id !== actor.agentId) {
      throw new AppError('FORBIDDEN', "Only the project's reviewer agent reviews through a run", { right: 'review tasks' })
    }
  }
  if (task.status !== 'in_review') throw invalidState(`Only a task in review can be reviewed; ${task.key} is ${task.status}`)
  const comment = input.comment?.trim() ?? ''
  if (input.decision === 'request_changes' && !comment) {
    throw invalidField('body', 'comment', 'A request for changes says what to change', input.comment ?? null)
  }
  if (comment) await addComment(tx, companyId, task.id, actor, { body: comment, kind: 'comment' })

  // The move always changes the status (in_review to done or todo), so updateTask publishes the
  // one task.updated, with the decision.
  const reviewed = await updateTask(tx, companyId, task.id, actor, { status: input.decision === 'approve' ? 'done' : 'todo' }, { review: input.decision })
  if (input.decision === 'approve') await queueMerge(tx, companyId, reviewed, actor)
  if (input.decision === 'request_changes' && reviewed.assignee_agent_id) {
    const assignee = await tx.one<{ name: string; status: string }>('SELECT name, status FROM agents WHERE id = $1', [reviewed.assignee_agent_id])
    if (assignee && !isDormant(assignee.status)) {
      await queueRun(tx, {
        companyId,
        agentId: reviewed.assignee_agent_id,
        agentName: assignee.name,
        taskId: reviewed.id,
        trigger: 'assignment',
        // The reviewer's words are in the task's comments, quoted there as data; the entry only points at them.
        reason: `${actor.name} reviewed ${reviewed.key} and requested changes: see their comment on the task, then continue on the branch.`,
        actor,
      })
    }
  }
  return reviewed
}

/**
 * With the project's merge_on_approve, the approved branch is merged into its default branch by
 * a runner: a `merge` run of the task's assignee, which starts no agent (runner/work/merge.ts).
 * Without an assignee to run it, a `question` comment says so: never a merge that silently
 * does not happen.
 */
async function queueMerge(tx: Tx, companyId: string, task: Task, actor: Actor): Promise<void> {
  const project = task.project_id
    ? await tx.one<{ merge_on_approve: boolean; repository: string | null; default_branch: string }>(
        'SELECT merge_on_approve, repository, default_branch FROM projects WHERE id = $1', [task.project_id])
    : null
  if (!project?.merge_on_approve || !project.repository) return
  const assignee = task.assignee_agent_id
    ? await tx.one<{ name: string; status: string }>('SELECT name, status FROM agents WHERE id = $1', [task.assignee_agent_id])
    : null
  if (!assignee || assignee.status === 'terminated') {
    await addComment(tx, companyId, task.id, systemActor(), {
      kind: 'question',
      body: `The branch shopfloor/${task.key} was not merged into ${project.default_branch}: the task has no agent whose runner could merge it. Merge it by hand.`,
    })
    return
  }
  const { run } = await queueRun(tx, {
    companyId,
    agentId: task.assignee_agent_id!,
    agentName: assignee.name,
    taskId: task.id,
    trigger: 'assignment',
    reason: `${actor.name} approved ${task.key}: merge shopfloor/${task.key} into ${project.default_branch}.`,
    actor,
  })
  await tx.query("UPDATE runs SET purpose = 'merge' WHERE id = $1 AND status = 'queued'", [run.id])
}
