import { type Account, account, createCompany, createTask, hireAgent } from '../lib/api.ts'

export interface Fixture {
  base: string
  account: Account
  companyId: string
  agentId: string
  taskKeys: string[]
}

/**
 * A person with an API key, a company with one agent and `tasks` tasks, made through the API.
 * The tasks are created in backlog, so no runs are queued for them.
 */
export async function fixture(base: string, tasks: number, prefix = 'BEN'): Promise<Fixture> {
  const who = await account(base)
  const company = await createCompany(base, who.apiKey, 'Benchmark company', prefix)
  const agent = await hireAgent(base, who.apiKey, company.id, 'Bench agent')
  const taskKeys: string[] = []
  for (let i = 0; i < tasks; i++) {
    const task = await createTask(base, who.apiKey, company.id, { title: `Read task ${i + 1}`, status: 'backlog', description: 'A task of moderate size '.repeat(8) })
    taskKeys.push(task.key)
  }
  return { base, account: who, companyId: company.id, agentId: agent.id, taskKeys }
}

/** Workload 1's requests: GET /tasks/{key}, round-robin over the fixture's tasks. */
export function taskReads(f: Fixture) {
  const headers = { authorization: `Bearer ${f.account.apiKey}` }
  return f.taskKeys.map((key) => ({ method: 'GET', path: `/api/companies/${f.companyId}/tasks/${key}`, headers }))
}
