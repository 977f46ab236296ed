// Spend limits mid-run, end to end: a real server, a real `shopfloor runner` and a stand-in
// agent (process adapter) that keeps spending, reporting its running cost with the documented
// `SHOPFLOOR_USAGE` line every 50 ms. The runner stops it at the agent's cap per run and at
// the rest of its monthly budget; the recorded cost passes a limit by less than one update.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempDir } from '../server-process.ts'
import { makeWorkspace, type RunnerProcess, startRunner, sharedTestServer, type TestServer, waitFor, type Workspace } from '../runner/harness.ts'

/** Cents each usage update adds. */
const STEP = 7

// Spends STEP cents every 50 ms for up to a minute, then succeeds; stops at the terminate signal.
const SPENDER = `
let cost = 0, tokens = 0
const timer = setInterval(() => {
  cost += ${STEP}; tokens += 1000
  console.log('working, ' + cost + ' cents so far')
  console.log('SHOPFLOOR_USAGE ' + JSON.stringify({ tokens_in: tokens, tokens_out: tokens / 10, cost_cents: cost }))
}, 50)
setTimeout(() => { clearInterval(timer); console.log('all done'); process.exit(0) }, 60_000)
`

let server: TestServer
let ws: Workspace
let runner: RunnerProcess

beforeAll(async () => {
  server = await sharedTestServer()
  ws = await makeWorkspace(server.url)
  const script = path.join(tempDir('shopfloor-spender-'), 'spender.mjs')
  fs.writeFileSync(script, SPENDER)
  runner = startRunner(
    ['--url', server.url, '--company', ws.companyId, '--runner-id', 'spend-runner', '--heartbeat-seconds', '1', '--poll-seconds', '5',
      '--flush-seconds', '0.2', '--agent-command', `"${process.execPath}" "${script}"`],
    { SHOPFLOOR_API_KEY: ws.apiKey },
  )
})

afterAll(async () => {
  await runner?.stop()
  await server?.close()
})

async function runOnce(agentId: string, title: string) {
  const task = await ws.client.tasks.create(ws.companyId, { title, assignee_agent_id: agentId })
  const run = await waitFor(async () => {
    const [latest] = await ws.client.runs.list(ws.companyId, { task_id: task.id })
    return latest && ['succeeded', 'failed', 'cancelled'].includes(latest.status) ? latest : null
  }, 30_000).catch((err) => {
    throw new Error(`${err.message}; runner output:\n${runner.output().slice(-3000)}`)
  })
  return ws.client.runs.get(ws.companyId, run.id)
}

describe('spend limits enforced by the runner', () => {
  it('stops a run at the cap per run without pausing the agent, then at the rest of the budget, which pauses it', async () => {
    const agent = await ws.client.agents.hire(ws.companyId, {
      name: 'Spender', adapter: 'process', monthly_budget_cents: 100, max_run_cost_cents: 30,
    })

    // The cap per run: failed, the error names the cap and the figures; the agent goes on.
    const capped = await runOnce(agent.id, 'First job')
    expect(capped.status).toBe('failed')
    expect(capped.cost_cents).toBeGreaterThanOrEqual(30)
    expect(capped.cost_cents).toBeLessThan(30 + STEP)
    expect(capped.error).toContain("cap per run (max_run_cost_cents)")
    expect(capped.error).toContain(`this run cost ${capped.cost_cents} cents, the cap is 30 cents`)
    const afterCap = await ws.client.agents.get(ws.companyId, agent.id)
    // A failed run leaves its agent in `error` (SPEC.md), not paused.
    expect(afterCap.status).toBe('error')
    expect(afterCap.spend_mtd_cents).toBe(capped.cost_cents)
    expect(await ws.client.approvals.list(ws.companyId, { status: 'pending' })).toEqual([])

    // Without the cap, the next run spends until the budget's rest (100 - the first run's cost).
    await ws.client.agents.update(ws.companyId, agent.id, { max_run_cost_cents: 0 })
    const budgeted = await runOnce(agent.id, 'Second job')
    expect(budgeted.status).toBe('failed')
    const month = capped.cost_cents + budgeted.cost_cents
    expect(month).toBeGreaterThanOrEqual(100)
    expect(month).toBeLessThan(100 + STEP)
    expect(budgeted.error).toBe(
      `stopped at the agent's monthly budget: this run cost ${budgeted.cost_cents} cents, the agent had spent ` +
        `${capped.cost_cents} of its 100-cent budget before it (${month} cents this month)`,
    )
    // The transcript shows the agent was working when it was stopped, not finishing on its own.
    expect((budgeted.transcript ?? []).map((e) => e.text).join('')).not.toContain('all done')

    // The server's finish-time check: the agent is paused and a budget_override opens.
    const paused = await ws.client.agents.get(ws.companyId, agent.id)
    expect(paused.status).toBe('paused')
    expect(paused.spend_mtd_cents).toBe(month)
    const approvals = await ws.client.approvals.list(ws.companyId, { status: 'pending' })
    expect(approvals).toHaveLength(1)
    expect(approvals[0]).toMatchObject({ type: 'budget_override', agent_id: agent.id, payload: { spend_cents: month, budget_cents: 100 } })
  }, 60_000)
})
