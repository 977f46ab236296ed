// Records named as people know them: an agent by its name, a project by its name, a goal by its
// title, a task by its key. Pages show these, never the ids (UUIDs) records point at each other by.
import { useAgents, useGoals, useProjects } from './queries.ts'

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export interface Names {
  agent(id: string): string | undefined
  project(id: string): string | undefined
  goal(id: string): string | undefined
}

/** Names of the company's agents (terminated ones too), projects and goals, from the cached lists. */
export function useNames(companyId: string): Names {
  const agents = useAgents(companyId, true)
  const projects = useProjects(companyId)
  const goals = useGoals(companyId)
  return {
    agent: (id) => agents.data?.find((a) => a.id === id)?.name,
    project: (id) => projects.data?.find((p) => p.id === id)?.name,
    goal: (id) => goals.data?.find((g) => g.id === id)?.title,
  }
}

/** What a runner is called on the page: "runner laptop-1". */
export const runnerName = (runnerId: string) => `runner ${runnerId}`
