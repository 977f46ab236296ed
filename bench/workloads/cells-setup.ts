import { account, createCompany, createTask, get } from '../lib/api.ts'
import type { Child } from '../lib/processes.ts'
import { withClient } from '../lib/postgres.ts'
import { seedCompanies } from './scale-seed.ts'

export interface SeededCompany {
  apiKey: string
  companyId: string
  /** The first of its agents (available: idle). */
  agentId: string
}

/**
 * A company of `tasks` tasks, seeded as workload 4's small company is (2 agents, five audit
 * events and five runs a task over 90 days, then VACUUM ANALYZE), and made through the API
 * around that: its owner, its key. A second company the seed asks for (its "filed by me") holds
 * one task.
 */
export async function seededCompany(server: Child, url: string, tasks: number, prefix: string): Promise<SeededCompany> {
  const who = await account(server.url, 'cells')
  const company = await createCompany(server.url, who.apiKey, `Company of ${tasks} tasks`, prefix)
  const aside = await createCompany(server.url, who.apiKey, 'Aside', `${prefix}X`)
  await withClient(url, (c) =>
    seedCompanies(c, [{ companyId: company.id, userId: who.userId, size: { agents: 2, tasks, auditEvents: 5 * tasks, runs: 5 * tasks } }], {
      companyId: aside.id, userId: who.userId, tasks: 1,
    }))
  const agents = await get<{ id: string; status: string }[]>(server.url, who.apiKey, `/api/companies/${company.id}/agents`)
  return { apiKey: who.apiKey, companyId: company.id, agentId: agents.find((a) => a.status === 'idle')!.id }
}

/** `n` tasks assigned to the agent through the API: each queues a run, as a busy company has them. */
export async function queueRuns(server: Child, c: SeededCompany, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await createTask(server.url, c.apiKey, c.companyId, { title: `Queued work ${i + 1}`, description: 'Work waiting for a runner', assignee_agent_id: c.agentId })
  }
}
