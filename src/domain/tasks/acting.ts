import type { Queryable } from '../../server/db/db.ts'
import { AppError } from '../../server/errors.ts'
import type { Actor } from '../../server/actor.ts'
import { foundRunIsRunning } from '../runs/model.ts'

/**
 * Who a task or comment write is attributed to. Without `run_id` it is the signed-in person;
 * with one, the run must be in this company and running, and the write is the run's agent's
 * (a record for the audit trail, not proof of origin). Otherwise 400 RUN_NOT_RUNNING.
 */
export async function actingActor(q: Queryable, companyId: string, person: Actor, runId: string | null | undefined): Promise<Actor> {
  if (!runId) return person
  const run = await q.one<{ agent_id: string; name: string }>(
    `SELECT r.agent_id, a.name
       FROM runs r JOIN agents a ON a.id = r.agent_id
      WHERE r.id = $1 AND r.company_id IS NOT DISTINCT FROM $2 AND ${foundRunIsRunning('r')}`,
    [runId, companyId],
  )
  if (!run) throw new AppError('RUN_NOT_RUNNING', 'Run is not running')
  return { type: 'agent', agentId: run.agent_id, name: run.name, runId }
}

/** The user id a write is recorded under: null when an agent made it. */
export function actingUserId(actor: Actor): string | null {
  return actor.type === 'user' ? actor.userId : null
}
