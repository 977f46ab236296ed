import type { Queryable } from '../server/db/db.ts'

/** Something with a cron the scheduler fires: a routine, or an agent's own heartbeat. */
export interface Definition {
  kind: 'routine' | 'heartbeat'
  /** The routine's id, or the agent's id for a heartbeat. */
  id: string
  companyId: string
  /** The cron text exactly as stored; firing checks it is still the same. */
  cron: string
}

export function definitionKey(def: Pick<Definition, 'kind' | 'id'>): string {
  return `${def.kind}:${def.id}`
}

/**
 * Every enabled routine and every agent with a heartbeat_cron, across all companies: the
 * scheduler serves the whole installation. Dormant agents stay in the list (they may be
 * resumed); the guarded statements that fire a slot skip them.
 */
export async function loadDefinitions(db: Queryable): Promise<Definition[]> {
  const routines = await db.many<{ id: string; company_id: string; cron: string }>(
    'SELECT id, company_id, cron FROM routines WHERE enabled',
  )
  const agents = await db.many<{ id: string; company_id: string; heartbeat_cron: string }>(
    `SELECT id, company_id, heartbeat_cron FROM agents
      WHERE heartbeat_cron IS NOT NULL AND btrim(heartbeat_cron) <> '' AND status <> 'terminated'`,
  )
  return [
    ...routines.map((r) => ({ kind: 'routine' as const, id: r.id, companyId: r.company_id, cron: r.cron })),
    ...agents.map((a) => ({ kind: 'heartbeat' as const, id: a.id, companyId: a.company_id, cron: a.heartbeat_cron })),
  ]
}
