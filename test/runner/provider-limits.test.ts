// A real runner meeting a provider's limit through the agent CLIs' stand-ins (stand-ins/*.mjs,
// printing what each CLI prints): the run is failed naming provider, limit and reset, the agent
// stays idle, the same work waits in a run queued for the reset, and the runner rests that
// provider's credential - it claims no other run for it, shows the cool-down in GET /runners -
// while runs for other providers go on.
import { execFile } from 'node:child_process'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { BIN, tempDir } from '../server-process.ts'
import {
  makeWorkspace, planDescription, type RunnerProcess, sharedTestServer, type StandIns, standIns, startRunner, type TestServer,
  waitFor, type Workspace,
} from './harness.ts'

let server: TestServer
let ws: Workspace
let clis: StandIns
let runner: RunnerProcess
/** The runner's cache folder, where it keeps its cool-downs across restarts. */
const cacheDir = tempDir('shopfloor-limits-cache-')

async function start(): Promise<RunnerProcess> {
  const started = startRunner(
    ['--url', server.url, '--company', ws.companyId, '--runner-id', 'limits-runner', '--heartbeat-seconds', '1', '--poll-seconds', '5',
      '--flush-seconds', '0.2', '--cache-dir', cacheDir],
    { SHOPFLOOR_API_KEY: ws.apiKey, PATH: `${clis.bin}:${process.env.PATH}`, ANTHROPIC_API_KEY: 'sk-ant-test', OPENAI_API_KEY: 'sk-openai-test' },
  )
  await waitFor(() => started.logs().find((l) => l.msg === 'runner started'), 90_000).catch((err) => {
    throw new Error(`${err.message}: ${started.output()}`)
  })
  return started
}

beforeAll(async () => {
  server = await sharedTestServer()
  ws = await makeWorkspace(server.url)
  clis = standIns(['claude', 'codex'])
  runner = await start()
})

afterAll(async () => {
  await runner?.stop()
  await server?.close()
})

const hire = (adapter: string, name: string) => ws.client.agents.hire(ws.companyId, { name, adapter })
const task = (agentId: string, plan: Record<string, unknown>) =>
  ws.client.tasks.create(ws.companyId, { title: 'Write the digest', description: planDescription(plan as any), assignee_agent_id: agentId })
const runsOf = (taskId: string) => ws.client.runs.list(ws.companyId, { task_id: taskId })

it('a subscription usage limit defers the work to the reset and rests the credential; other providers go on', async () => {
  const reset = new Date(Date.now() + 3600_000)
  reset.setUTCMilliseconds(0)
  const limited = await hire('agent_cli_1', 'Limited')
  const first = await task(limited.id, { fail: 'usage_limit', failText: `Claude AI usage limit reached|${reset.getTime() / 1000}` })
  const failed = await waitFor(async () => (await runsOf(first.id)).find((r) => r.status === 'failed'), 30_000)
  expect(failed.error).toMatch(new RegExp(`^Claude Code: rate limited: Claude AI usage limit reached\\|\\d+ \\(anthropic usage limit, resets ${reset.toISOString()}\\)$`))
  expect((await ws.client.agents.get(ws.companyId, limited.id)).status).toBe('idle')
  const [replacement] = (await runsOf(first.id)).filter((r) => r.status === 'queued')
  expect(Date.parse(replacement!.not_before!)).toBe(reset.getTime())

  const presence = await waitFor(async () => {
    const me = (await ws.client.runners.list(ws.companyId)).find((r) => r.runner_id === 'limits-runner')
    return me?.cooldowns.length ? me : null
  }, 10_000)
  expect(presence.cooldowns).toEqual([{ provider: 'anthropic', until: reset.toISOString() }])

  // Another Claude Code agent's work is not started against the exhausted credential...
  const other = await hire('agent_cli_1', 'Waiting')
  const waiting = await task(other.id, { reply: 'Done.' })
  // ...while a Codex agent's run, queued after it, is claimed and finishes.
  const codex = await hire('agent_cli_2', 'Codex')
  const goesOn = await task(codex.id, { reply: 'Done.' })
  await waitFor(async () => (await runsOf(goesOn.id)).find((r) => r.status === 'succeeded'), 30_000)
  expect((await runsOf(waiting.id)).map((r) => r.status)).toEqual(['queued'])
  expect((await runsOf(first.id)).map((r) => r.status).sort()).toEqual(['failed', 'queued'])
})

it('20 agents on heartbeats for ten slots start no run against the exhausted credential: one queued run each, waiting', async () => {
  // Runs after the first test: the runner rests anthropic for an hour.
  const agents = await Promise.all(Array.from({ length: 20 }, (_, i) => hire('agent_cli_1', `Heartbeat ${i + 1}`)))
  for (let slot = 0; slot < 10; slot++) {
    // What a heartbeat slot does for each agent: a wake without a task (scheduler/fire.ts).
    await Promise.all(agents.map((a) => ws.client.agents.wake(ws.companyId, a.id, { reason: `Scheduled heartbeat (slot ${slot})` })))
  }
  // A run of another provider, queued after them all, is claimed and finishes: the runner did claim meanwhile.
  const codex = await hire('agent_cli_2', 'Codex after')
  const after = await task(codex.id, { reply: 'Done.' })
  await waitFor(async () => (await runsOf(after.id)).find((r) => r.status === 'succeeded'), 30_000)
  const runs = (await Promise.all(agents.map((a) => ws.client.runs.list(ws.companyId, { agent_id: a.id })))).flat()
  expect(runs.filter((r) => r.started_at !== null)).toEqual([])
  expect(runs.map((r) => r.status)).toEqual(Array(20).fill('queued'))
})

it('a runner started again keeps resting the credential until the reset, and `runner doctor` shows the cool-down and why', async () => {
  // Runs after the first test: the runner rests anthropic for an hour.
  const until = (await ws.client.runners.list(ws.companyId)).find((r) => r.runner_id === 'limits-runner')!.cooldowns[0]!.until
  expect((await runner.stop()).code).toBe(0)
  runner = await start()
  expect(runner.logs().find((l) => l.msg.startsWith('provider credentials still resting'))?.cooldowns).toMatchObject([{ provider: 'anthropic', until }])

  const claude = await hire('agent_cli_1', 'After restart')
  const waiting = await task(claude.id, { reply: 'Done.' })
  const codex = await hire('agent_cli_2', 'Codex after restart')
  const goesOn = await task(codex.id, { reply: 'Done.' })
  await waitFor(async () => (await runsOf(goesOn.id)).find((r) => r.status === 'succeeded'), 30_000)
  expect((await runsOf(waiting.id)).map((r) => [r.status, r.started_at])).toEqual([['queued', null]])
  const me = (await ws.client.runners.list(ws.companyId)).find((r) => r.runner_id === 'limits-runner')!
  expect([me.status, me.cooldowns]).toEqual(['online', [{ provider: 'anthropic', until }]])

  const stdout = await new Promise<string>((resolve) => {
    execFile(process.execPath, [BIN, 'runner', 'doctor', '--cache-dir', cacheDir], { env: { PATH: process.env.PATH!, HOME: tempDir('shopfloor-doctor-home-') }, timeout: 60_000 },
      (_err, out) => resolve(out))
  })
  const lines = stdout.split('\n')
  const heading = lines.indexOf('Cool-downs (no runs for these provider credentials until the reset):')
  expect(lines[heading + 1]).toMatch(/^  anthropic \(runner limits-runner\): until (\S+) \(in (59|60) min\): Claude Code: rate limited: Claude AI usage limit reached/)
  expect(lines[heading + 1]).toContain(`until ${until} `)
}, 120_000)

it('a fallback model runs when the primary is overloaded; the transcript says which ran and why, usage priced for it', async () => {
  const agent = await ws.client.agents.hire(ws.companyId, {
    name: 'With fallback', adapter: 'agent_cli_2',
    adapter_config: { model: 'gpt-5-codex', fallback: [{ model: 'gpt-5-mini' }] },
  })
  const t = await task(agent.id, {
    fail: 'overloaded', failFor: ['gpt-5-codex'], reply: 'Done on the fallback.', usage: { input: 1000, cacheRead: 0, cacheWrite: 0, output: 100 },
  })
  const done = await waitFor(async () => (await runsOf(t.id)).find((r) => ['succeeded', 'failed'].includes(r.status)), 30_000)
  const run = await ws.client.runs.get(ws.companyId, done.id)
  expect(run.status).toBe('succeeded')
  const system = run.transcript!.filter((e) => e.role === 'system').map((e) => e.text).join('')
  expect(system).toContain('Model gpt-5-codex failed (openai overloaded); running the fallback model gpt-5-mini.')
  expect(run.tokens_in).toBe(1000)
})
