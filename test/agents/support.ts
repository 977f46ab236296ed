// A company with an org chart (CEO > manager > report, and a peer of the manager) and a claimed
// run of the manager, whose `run_token` the tests act with.
import { call, type TestApp } from '../helpers.ts'
import { seedAgent, seedCompany, seedTask, type Seeded } from '../runs/seed.ts'

export interface Org extends Seeded {
  ceo: string
  manager: string
  report: string
  peer: string
  /** The manager's task, claimed. */
  taskId: string
  runId: string
  token: string
}

/** Claims the oldest queued run of the company as a runner of the seeded user. */
export async function claim(t: TestApp, s: Seeded, agentId?: string) {
  const r = await call(t.app, 'POST', `${s.base}/runs/claim`, {
    token: s.user.token,
    body: { runner_id: 'test-runner', ...(agentId ? { agent_ids: [agentId] } : {}) },
  })
  if (r.status !== 200) throw new Error(`claim answered ${r.status}: ${JSON.stringify(r.body)}`)
  return r.body
}

export async function seedOrg(t: TestApp): Promise<Org> {
  const s = await seedCompany(t, { prefix: 'ORG' })
  const ceo = await seedAgent(t, s, { name: 'Ceo' })
  const manager = await seedAgent(t, s, { name: 'Manager', reportsTo: ceo })
  const report = await seedAgent(t, s, { name: 'Report', reportsTo: manager })
  const peer = await seedAgent(t, s, { name: 'Peer', reportsTo: ceo })
  const taskId = await seedTask(t, s, { title: 'Plan the launch', assignee: manager })
  const claimed = await claim(t, s, manager)
  return { ...s, ceo, manager, report, peer, taskId, runId: claimed.run.id, token: claimed.run_token }
}
