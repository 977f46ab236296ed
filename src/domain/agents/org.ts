import type { Queryable } from '../../server/db/db.ts'
import type { Agent } from './model.ts'
import { listAgents } from './read.ts'

export interface OrgNode {
  agent: Agent
  reports: OrgNode[]
}

/**
 * The reporting tree of the company's non-terminated agents. Roots are agents with no manager
 * or whose manager is terminated (so not in the list); siblings keep hiring order.
 */
export async function orgChart(db: Queryable, companyId: string): Promise<OrgNode[]> {
  const agents = await listAgents(db, companyId, false)
  const nodes = new Map(agents.map((agent) => [agent.id, { agent, reports: [] as OrgNode[] }]))
  const roots: OrgNode[] = []
  for (const node of nodes.values()) {
    const manager = node.agent.reports_to_id ? nodes.get(node.agent.reports_to_id) : undefined
    if (manager) manager.reports.push(node)
    else roots.push(node)
  }
  return roots
}
