// `waiting_reason` of a queued run (GET /runs/{id} and the runs list): none online, none online
// that runs the agent's adapter (named with what they do run), or null once one can take it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, type TestApp, testApp } from '../helpers.ts'
import { type Seeded, seedAgent, seedCompany, seedTask } from './seed.ts'

const LEASE = 120
let t: TestApp
beforeAll(async () => {
  t = await testApp({ runLeaseSeconds: LEASE })
})
afterAll(async () => t?.close())

const claim = (s: Seeded, body: Record<string, unknown>) => call(t.app, 'POST', `${s.base}/runs/claim`, { token: s.user.token, body })
const getRun = async (s: Seeded, id: string) => (await call(t.app, 'GET', `${s.base}/runs/${id}`, { token: s.user.token })).body
const listed = async (s: Seeded, id: string) => (await call(t.app, 'GET', `${s.base}/runs`, { token: s.user.token })).body.find((r: any) => r.id === id)

/** A Codex agent with a task assigned: its assignment run is queued. */
async function queuedCodexRun(s: Seeded) {
  const agent = await seedAgent(t, s, { name: 'Cody', adapter: 'agent_cli_2' })
  await seedTask(t, s, { title: 'Port the parser', assignee: agent })
  const runs = (await call(t.app, 'GET', `${s.base}/runs?agent_id=${agent}`, { token: s.user.token })).body
  expect(runs).toHaveLength(1)
  expect(runs[0].status).toBe('queued')
  return { agent, runId: runs[0].id as string }
}

describe('waiting_reason', () => {
  it('says no runner is online, then that none of the online ones runs Codex (naming what they run), then nothing once one does', async () => {
    const s = await seedCompany(t)
    const { runId } = await queuedCodexRun(s)
    const none = 'no runner of the company is online: start one with `shopfloor runner`'
    expect((await getRun(s, runId)).waiting_reason).toBe(none)
    expect((await listed(s, runId)).waiting_reason).toBe(none)

    // A runner that found only Claude Code: it claims nothing of this run.
    expect((await claim(s, { runner_id: 'box-1', adapters: ['agent_cli_1', 'simulated'] })).status).toBe(204)
    const reason = (await getRun(s, runId)).waiting_reason
    expect(reason).toMatch(/^no online runner can run Codex \(agent_cli_2\): it is not installed there in a supported version/)
    expect(reason).toContain('box-1: Claude Code (agent_cli_1), Simulated (simulated)')
    expect((await listed(s, runId)).waiting_reason).toBe(reason)

    // One that runs Codex (claiming for another agent only, so that the run stays queued).
    const other = await seedAgent(t, s, { name: 'Idle' })
    expect((await claim(s, { runner_id: 'box-2', adapters: ['agent_cli_2'], agent_ids: [other] })).status).toBe(204)
    expect((await getRun(s, runId)).waiting_reason).toBeNull()

    // Both silent for more than two lease lengths: gone.
    await t.ctx.db.query(`UPDATE runners SET last_seen_at = now() - make_interval(secs => $2) WHERE company_id = $1`, [s.companyId, LEASE * 3])
    expect((await getRun(s, runId)).waiting_reason).toBe(none)
  })

  it('is null on runs that are not queued, and a runner claiming every adapter (--simulate) can run any', async () => {
    const s = await seedCompany(t)
    const { runId } = await queuedCodexRun(s)
    const claimed = await claim(s, { runner_id: 'sim' })
    expect(claimed.status).toBe(200)
    expect(claimed.body.run.id).toBe(runId)
    expect((await getRun(s, runId)).waiting_reason).toBeNull()
    expect((await listed(s, runId)).waiting_reason).toBeNull()
  })
})
