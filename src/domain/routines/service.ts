import type { Queryable } from '../../server/db/db.ts'
import type { Tx } from '../../server/db/write.ts'
import { notFound } from '../../server/errors.ts'
import type { Actor } from '../../server/actor.ts'
import { diff, recordAudit } from '../audit/record.ts'
import { findInCompany } from '../companies/references.ts'
import { ROUTINE_COLUMNS, ROUTINE_FIELDS, type Routine, type RoutineInput } from './model.ts'

// Routines: cron-scheduled templates for a task and a run. The cron text is stored as given
// (the scheduler interprets it); the agent and project must belong to the company.

export function listRoutines(q: Queryable, companyId: string): Promise<Routine[]> {
  return q.many<Routine>(`SELECT ${ROUTINE_COLUMNS} FROM routines WHERE company_id = $1 ORDER BY created_at, id`, [companyId])
}

export async function getRoutine(q: Queryable, companyId: string, routineId: string, lock = false): Promise<Routine> {
  const routine = await q.one<Routine>(
    `SELECT ${ROUTINE_COLUMNS} FROM routines WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2 ${lock ? 'FOR NO KEY UPDATE' : ''}`,
    [routineId, companyId],
  )
  if (!routine) throw notFound('Routine')
  return routine
}

async function checkLinks(tx: Tx, companyId: string, input: RoutineInput) {
  if (input.agent_id) await findInCompany(tx, 'agents', companyId, input.agent_id, 'Agent')
  if (input.project_id) await findInCompany(tx, 'projects', companyId, input.project_id, 'Project')
}

export async function createRoutine(tx: Tx, companyId: string, actor: Actor, input: RoutineInput & Pick<Routine, 'agent_id' | 'title' | 'cron'>): Promise<Routine> {
  await checkLinks(tx, companyId, input)
  const routine = (await tx.one<Routine>(
    `INSERT INTO routines (company_id, agent_id, project_id, title, description, cron, enabled)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${ROUTINE_COLUMNS}`,
    [companyId, input.agent_id, input.project_id ?? null, input.title, input.description ?? null, input.cron, input.enabled ?? true],
  ))!
  await recordAudit(tx, {
    companyId, actor, verb: 'created', entityType: 'routine', entityId: routine.id, label: routine.title,
    changes: diff({}, routine, [...ROUTINE_FIELDS]),
  })
  tx.publish(companyId, { type: 'routine.created', id: routine.id })
  return routine
}

/** Changes only the fields present; audits and publishes `routine.updated` only when something changed. */
export async function updateRoutine(tx: Tx, companyId: string, routineId: string, actor: Actor, input: RoutineInput): Promise<Routine> {
  const before = await getRoutine(tx, companyId, routineId, true)
  await checkLinks(tx, companyId, input)
  const fields = ROUTINE_FIELDS.filter((f) => Object.prototype.hasOwnProperty.call(input, f))
  const changes = diff(before, { ...before, ...input }, fields)
  const changed = Object.keys(changes)
  if (changed.length === 0) return before
  const params: unknown[] = [routineId, companyId]
  const sets = changed.map((field) => `${field} = $${params.push(input[field as keyof RoutineInput])}`)
  const routine = (await tx.one<Routine>(
    `UPDATE routines SET ${sets.join(', ')}, updated_at = now() WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2 RETURNING ${ROUTINE_COLUMNS}`,
    params,
  ))!
  await recordAudit(tx, { companyId, actor, verb: 'updated', entityType: 'routine', entityId: routineId, label: routine.title, changes })
  tx.publish(companyId, { type: 'routine.updated', id: routineId })
  return routine
}

/** Deletes a routine; the tasks and runs it made stay, their routine_id set null by the schema. */
export async function deleteRoutine(tx: Tx, companyId: string, routineId: string, actor: Actor): Promise<void> {
  const routine = await getRoutine(tx, companyId, routineId, true)
  await tx.query('DELETE FROM routines WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2', [routineId, companyId])
  await recordAudit(tx, {
    companyId, actor, verb: 'deleted', entityType: 'routine', entityId: routineId, label: routine.title,
    changes: diff(routine, {}, [...ROUTINE_FIELDS]),
  })
  tx.publish(companyId, { type: 'routine.deleted', id: routineId })
}
