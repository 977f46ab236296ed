// Records named as people know them: an agent by its name, a project by its name, a goal by its
// title, a task by its key. Pages show these, never the ids (UUIDs) records point at each other by.
import type { AuditEvent } from '#src/client/types.ts'
import { useAgents, useGoals, useProjects } from './queries.ts'

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

// Said while a list is on its way, so a record is never called deleted before its list arrives.
const LOADING = '…'

/** Each returns the name, or undefined when the record is no longer there. */
export interface Names {
  agent(id: string): string | undefined
  project(id: string): string | undefined
  goal(id: string): string | undefined
}

/** An agent's name (terminated ones too), from the cached list of agents. */
export function useAgentName(companyId: string): Names['agent'] {
  const agents = useAgents(companyId, true)
  return (id) => (agents.data ? agents.data.find((a) => a.id === id)?.name : LOADING)
}

/** Names of the company's agents, projects and goals, from the cached lists. */
export function useNames(companyId: string): Names {
  const agent = useAgentName(companyId)
  const projects = useProjects(companyId)
  const goals = useGoals(companyId)
  return {
    agent,
    project: (id) => (projects.data ? projects.data.find((p) => p.id === id)?.name : LOADING),
    goal: (id) => (goals.data ? goals.data.find((g) => g.id === id)?.title : LOADING),
  }
}

/** What a runner is called on the page: "runner laptop-1". */
export const runnerName = (runnerId: string) => `runner ${runnerId}`

/**
 * Who an audit event credits, as every page says it: the person or agent by name; the service
 * acting for an agent (its runs starting and ending, the claim moving its task: SPEC.md names
 * such a `system` actor after the agent) by that agent's name, "via Shopfloor"; the service on
 * its own as "Shopfloor". Never the person whose key a runner holds.
 */
export function auditActor(event: Pick<AuditEvent, 'actor_type' | 'actor_name'>): { name: string; kind: string } {
  if (event.actor_type === 'user') return { name: event.actor_name, kind: 'person' }
  if (event.actor_type === 'agent') return { name: event.actor_name, kind: 'agent' }
  if (event.actor_name && event.actor_name !== 'system') return { name: event.actor_name, kind: 'agent, via Shopfloor' }
  return { name: 'Shopfloor', kind: 'the service' }
}
