import type { Queryable } from '../../server/db/db.ts'
import { notFound } from '../../server/errors.ts'
import { AGENT_SELECT, type Agent } from './model.ts'

/** Agents of a company in hiring order; terminated ones only when asked for. */
export function listAgents(db: Queryable, companyId: string, includeTerminated: boolean): Promise<Agent[]> {
  return db.many<Agent>(
    `${AGENT_SELECT}
      WHERE a.company_id = $1 AND ($2 OR a.status <> 'terminated')
      ORDER BY a.created_at, a.id`,
    [companyId, includeTerminated],
  )
}

/** One agent of the company with its month-to-date stats, else `404 Agent not found`. */
export async function getAgent(db: Queryable, companyId: string, agentId: string): Promise<Agent> {
  const agent = await db.one<Agent>(`${AGENT_SELECT} WHERE a.id = $1 AND a.company_id IS NOT DISTINCT FROM $2`, [agentId, companyId])
  if (!agent) throw notFound('Agent')
  return agent
}
