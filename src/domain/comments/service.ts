import type { Queryable } from '../../server/db/db.ts'
import type { Tx } from '../../server/db/write.ts'
import { notFound } from '../../server/errors.ts'
import type { Actor } from '../../server/actor.ts'
import { diff, recordAudit } from '../audit/record.ts'
import { actingUserId } from '../tasks/acting.ts'
import { wakeOnAnswer } from '../tasks/delegation.ts'
import { findTask } from '../tasks/find.ts'
import type { Task } from '../tasks/model.ts'
import type { Comment } from '../../contract/comments.ts'

// Comments on a task. Kinds `comment`, `question` and `plan` come from people and agents; the
// stored model also knows `system`, which the API neither accepts nor creates. Every change
// publishes `task.commented` with the task's id.

export { COMMENT_KINDS, type Comment } from '../../contract/comments.ts'

const COLUMNS = 'id, task_id, kind, body, author_user_id, author_agent_id, run_id, created_at, updated_at'

/** The task's comments, oldest first. */
export async function listComments(db: Queryable, companyId: string, taskRef: string): Promise<Comment[]> {
  const task = await findTask(db, companyId, taskRef)
  return db.many<Comment>(
    `SELECT ${COLUMNS} FROM task_comments WHERE task_id = $1 AND company_id = $2 ORDER BY created_at, id`,
    [task.id, companyId],
  )
}

function audit(tx: Tx, companyId: string, actor: Actor, verb: string, task: Task, commentId: string, changes = {}) {
  tx.publish(companyId, { type: 'task.commented', id: task.id })
  return recordAudit(tx, { companyId, actor, verb, entityType: 'comment', entityId: commentId, label: task.key, changes })
}

export async function addComment(tx: Tx, companyId: string, taskRef: string, actor: Actor, input: { body: string; kind?: string }): Promise<Comment> {
  const task = await findTask(tx, companyId, taskRef)
  const comment = (await tx.one<Comment>(
    `INSERT INTO task_comments (company_id, task_id, kind, body, author_user_id, author_agent_id, run_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     RETURNING ${COLUMNS}`,
    [
      companyId, task.id, input.kind ?? 'comment', input.body, actingUserId(actor),
      actor.type === 'agent' ? actor.agentId : null, actor.type === 'agent' ? actor.runId : null,
    ],
  ))!
  await audit(tx, companyId, actor, 'created', task, comment.id, diff({}, comment, ['kind', 'body']))
  await wakeOnAnswer(tx, companyId, task, actor, comment.body)
  return comment
}

async function findComment(tx: Tx, companyId: string, taskRef: string, commentId: string) {
  const task = await findTask(tx, companyId, taskRef)
  const comment = await tx.one<Comment>(
    // The task as the company: a form no index takes, so that the primary key finds the comment
    // even when the statistics have never seen the task (its index then looked as cheap, and
    // an edit read every comment of a long task).
    `SELECT ${COLUMNS} FROM task_comments WHERE id = $1 AND task_id IS NOT DISTINCT FROM $2 AND company_id IS NOT DISTINCT FROM $3 FOR NO KEY UPDATE`,
    [commentId, task.id, companyId],
  )
  if (!comment) throw notFound('Comment')
  return { task, comment }
}

/** Edits body or kind; nothing is written or published when neither changes. */
export async function updateComment(tx: Tx, companyId: string, taskRef: string, commentId: string, actor: Actor, patch: { body?: string; kind?: string }): Promise<Comment> {
  const { task, comment } = await findComment(tx, companyId, taskRef, commentId)
  const changes = diff(comment, { ...comment, ...patch }, ['kind', 'body'])
  if (Object.keys(changes).length === 0) return comment
  const updated = (await tx.one<Comment>(
    `UPDATE task_comments SET body = $3, kind = $4, updated_at = now()
      WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2
      RETURNING ${COLUMNS}`,
    [commentId, companyId, patch.body ?? comment.body, patch.kind ?? comment.kind],
  ))!
  await audit(tx, companyId, actor, 'updated', task, commentId, changes)
  return updated
}

export async function deleteComment(tx: Tx, companyId: string, taskRef: string, commentId: string, actor: Actor): Promise<void> {
  const { task } = await findComment(tx, companyId, taskRef, commentId)
  await tx.query('DELETE FROM task_comments WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2', [commentId, companyId])
  await audit(tx, companyId, actor, 'deleted', task, commentId)
}
