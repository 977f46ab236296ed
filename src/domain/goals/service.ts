import type { Queryable } from '../../server/db/db.ts'
import type { Tx } from '../../server/db/write.ts'
import { AppError, notFound } from '../../server/errors.ts'
import type { Goal } from '../../contract/goals.ts'
import type { Actor } from '../../server/actor.ts'
import { diff, recordAudit } from '../audit/record.ts'
import { chainReaches, findInCompany } from '../companies/references.ts'
import { detachTasks } from '../tasks/detach.ts'

// Goals nest (parent_id) without cycles. Their status is set by people and agents only; the
// task counts are kept by the tasks' counters trigger (goal_task_counts, migration 135).

export { GOAL_STATUSES, type Goal } from '../../contract/goals.ts'
const GOAL_FIELDS = ['title', 'description', 'status', 'parent_id', 'owner_agent_id', 'target_date'] as const

export type GoalInput = Partial<Pick<Goal, (typeof GOAL_FIELDS)[number]>>

// The goal row is already limited to the company, and only its own tasks can link to it, so
// the counts need no company condition: the goal's slots of goal_task_counts, at most 16 rows.
const GOAL_SELECT = `
  SELECT g.id, g.title, g.description, g.status, g.parent_id, g.owner_agent_id, g.target_date,
         n.tasks_done, n.tasks_total, g.created_at
    FROM goals g
    CROSS JOIN LATERAL (
      SELECT coalesce(sum(c.done), 0)::int AS tasks_done, coalesce(sum(c.total), 0)::int AS tasks_total
        FROM goal_task_counts c WHERE c.goal_id = g.id
    ) n`

export function listGoals(db: Queryable, companyId: string): Promise<Goal[]> {
  return db.many<Goal>(`${GOAL_SELECT} WHERE g.company_id = $1 ORDER BY g.created_at, g.id`, [companyId])
}

export async function getGoal(db: Queryable, companyId: string, goalId: string): Promise<Goal> {
  const goal = await db.one<Goal>(`${GOAL_SELECT} WHERE g.id = $1 AND g.company_id IS NOT DISTINCT FROM $2`, [goalId, companyId])
  if (!goal) throw notFound('Goal')
  return goal
}

async function checkLinks(tx: Tx, companyId: string, input: GoalInput) {
  if (input.parent_id) await findInCompany(tx, 'goals', companyId, input.parent_id, 'Parent goal')
  if (input.owner_agent_id) await findInCompany(tx, 'agents', companyId, input.owner_agent_id, 'Owner agent')
}

export async function createGoal(tx: Tx, companyId: string, actor: Actor, input: GoalInput & { title: string }): Promise<Goal> {
  await checkLinks(tx, companyId, input)
  const row = await tx.one<{ id: string }>(
    `INSERT INTO goals (company_id, title, description, status, parent_id, owner_agent_id, target_date)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
    [companyId, input.title, input.description ?? null, input.status ?? 'active', input.parent_id ?? null,
      input.owner_agent_id ?? null, input.target_date ?? null],
  )
  const goal = await getGoal(tx, companyId, row!.id)
  await recordAudit(tx, {
    companyId, actor, verb: 'created', entityType: 'goal', entityId: goal.id, label: goal.title,
    changes: diff({}, goal, [...GOAL_FIELDS]),
  })
  tx.publish(companyId, { type: 'goal.created', id: goal.id })
  return goal
}

/** Changes the fields present; nesting under itself or a descendant is GOAL_CYCLE. */
export async function updateGoal(tx: Tx, companyId: string, goalId: string, actor: Actor, patch: GoalInput): Promise<Goal> {
  const locked = await tx.one('SELECT id FROM goals WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2 FOR NO KEY UPDATE', [goalId, companyId])
  if (!locked) throw notFound('Goal')
  const before = await getGoal(tx, companyId, goalId)
  const wanted = { ...patch }
  if (typeof wanted.target_date === 'string') {
    // Spell the date the way the database returns it, so an unchanged date compares equal.
    wanted.target_date = (await tx.one<{ v: string }>('SELECT $1::timestamptz AS v', [wanted.target_date]))!.v
  }
  const after: Record<string, unknown> = { ...before }
  for (const field of GOAL_FIELDS) if (wanted[field] !== undefined) after[field] = wanted[field]
  const changes = diff(before, after, [...GOAL_FIELDS])
  if (Object.keys(changes).length === 0) return before

  const parentId = 'parent_id' in changes ? (after.parent_id as string | null) : null
  if (parentId && (parentId === goalId || (await chainReaches(tx, 'goals', companyId, parentId, goalId)))) {
    throw new AppError('GOAL_CYCLE', 'A goal cannot be nested under itself or one of its sub-goals')
  }
  await checkLinks(tx, companyId, {
    parent_id: parentId,
    owner_agent_id: 'owner_agent_id' in changes ? (after.owner_agent_id as string | null) : null,
  })
  await tx.query(
    `UPDATE goals SET title = $3, description = $4, status = $5, parent_id = $6, owner_agent_id = $7, target_date = $8,
                      updated_at = now()
      WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2`,
    [goalId, companyId, after.title, after.description, after.status, after.parent_id, after.owner_agent_id, after.target_date],
  )
  await recordAudit(tx, { companyId, actor, verb: 'updated', entityType: 'goal', entityId: goalId, label: String(after.title), changes })
  tx.publish(companyId, { type: 'goal.updated', id: goalId })
  return getGoal(tx, companyId, goalId)
}

/**
 * Deletes a goal; its sub-goals and tasks are detached (their link becomes null), each an
 * audited change with `goal.updated` or `task.updated`.
 */
export async function deleteGoal(tx: Tx, companyId: string, goalId: string, actor: Actor): Promise<void> {
  const goal = await tx.one<{ title: string }>('SELECT title FROM goals WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2 FOR UPDATE', [goalId, companyId])
  if (!goal) throw notFound('Goal')
  const subgoals = await tx.many<{ id: string; title: string }>(
    'UPDATE goals SET parent_id = NULL, updated_at = now() WHERE parent_id = $1 AND company_id = $2 RETURNING id, title',
    [goalId, companyId],
  )
  for (const sub of subgoals) {
    await recordAudit(tx, { companyId, actor, verb: 'updated', entityType: 'goal', entityId: sub.id, label: sub.title, changes: { parent_id: [goalId, null] } })
    tx.publish(companyId, { type: 'goal.updated', id: sub.id })
  }
  await detachTasks(tx, companyId, 'goal_id', goalId, actor)
  await tx.query('DELETE FROM goals WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2', [goalId, companyId])
  await recordAudit(tx, { companyId, actor, verb: 'deleted', entityType: 'goal', entityId: goalId, label: goal.title })
  tx.publish(companyId, { type: 'goal.deleted', id: goalId })
}
