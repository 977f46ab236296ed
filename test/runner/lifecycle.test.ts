// The runner's life around its runs, each test with a company and runner processes of its own,
// against a server whose lease is 2 seconds and whose scheduler sweeps stale runs every second.
// Most of a test is waiting (agents sleeping, leases running out), and runners only see their
// own company's runs: the tests run at the same time, and their runners stop when the file ends.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { tempDir } from '../server-process.ts'
import {
  alive,
  type FakeAgent,
  fakeAgent,
  type FakePlan,
  killLeftover,
  makeWorkspace,
  planDescription,
  type RunnerProcess,
  running,
  startRunner,
  startTestServer,
  type TestServer,
  waitFor,
  type Workspace,
} from './harness.ts'

const LEASE_EXPIRED = 'The runner stopped reporting (lease expired)'

// A runner is two Node processes started one after the other (the one started hands the key to
// the one that claims runs), and an agent is a third: with every test file's servers, runners
// and browsers at work, starting one took 8 seconds, and a first run's claim more than 20. The
// waits for a run to start or end leave room for that; what they check is unchanged.
const STARTING_MS = 45_000
vi.setConfig({ testTimeout: 120_000 })

let server: TestServer
let agent: FakeAgent
const runners: RunnerProcess[] = []
const leftovers: number[] = []

beforeAll(async () => {
  server = await startTestServer({ RUN_LEASE_SECONDS: '2', SCHEDULER: 'on', STALE_SWEEP_SECONDS: '1', ALLOW_LOCAL_REPOSITORIES: 'true' })
  agent = fakeAgent()
})
afterAll(async () => {
  await Promise.all(runners.splice(0).map((r) => r.stop('SIGKILL')))
  for (const pid of leftovers.splice(0)) killLeftover(pid)
  await server?.close()
})

/** A runner for the workspace's company; heartbeats well inside the 2-second lease. */
function runner(ws: Workspace, args: string[] = [], env: Record<string, string> = {}): RunnerProcess {
  const process = startRunner(
    ['--url', server.url, '--company', ws.companyId, '--heartbeat-seconds', '0.5', '--flush-seconds', '0.2', '--agent-command', agent.command, ...args],
    { SHOPFLOOR_API_KEY: ws.apiKey, FAKE_AGENT_OUT: agent.out, ...env },
  )
  runners.push(process)
  return process
}

async function assign(ws: Workspace, plan: FakePlan, fields: Record<string, unknown> = {}) {
  const worker = await ws.client.agents.hire(ws.companyId, { name: `Agent ${Math.random().toString(36).slice(2, 7)}`, adapter: 'process' })
  const task = await ws.client.tasks.create(ws.companyId, { title: 'Long job', description: planDescription(plan), assignee_agent_id: worker.id, ...fields })
  const [run] = await ws.client.runs.list(ws.companyId, { task_id: task.id })
  return { worker, task, run }
}

/** Waits until the fake agent has started on the run; returns what it recorded. */
async function agentStarted(runId: string) {
  const seen = await waitFor(() => agent.started(runId), STARTING_MS)
  leftovers.push(seen.pid)
  return seen
}

const runStatus = async (ws: Workspace, runId: string, status: string) =>
  waitFor(async () => {
    const run = await ws.client.runs.get(ws.companyId, runId)
    return run.status === status ? run : null
  }, STARTING_MS)

describe.concurrent('starting', () => {
  it('refuses to start without an API key or with a password session', async () => {
    const ws = await makeWorkspace(server.url)
    const noKey = startRunner(['--url', server.url, '--company', ws.companyId], { SHOPFLOOR_API_KEY: '' })
    const session = startRunner(['--url', server.url, '--company', ws.companyId], { SHOPFLOOR_API_KEY: ws.accessToken })
    expect((await noKey.exited).code).toBe(2)
    expect(noKey.output()).toContain('no API key')
    expect((await session.exited).code).toBe(2)
    expect(session.output()).toContain('refuses password sessions')
  })
})

describe.concurrent('stopping a run', () => {
  it('stops the agent when its run is cancelled, and goes on claiming', async () => {
    const ws = await makeWorkspace(server.url)
    const r = runner(ws, ['--poll-seconds', '30'])
    const { run } = await assign(ws, { lines: ['started'], sleep: 30 })
    const seen = await agentStarted(run.id)
    await ws.client.runs.cancel(ws.companyId, run.id)
    await waitFor(() => !alive(seen.pid), 10_000)
    expect(agent.finished(run.id)).toBe(false)
    const after = await ws.client.runs.get(ws.companyId, run.id)
    expect(after).toMatchObject({ status: 'cancelled', summary: null, error: null })
    expect(r.logs().some((l) => l.msg === 'run is no longer ours; stopping the agent' && l.run_id === run.id)).toBe(true)

    // The next run is claimed on its run.created event, well before the 30-second poll.
    const next = await assign(ws, { reply: 'quick' })
    await runStatus(ws, next.run.id, 'succeeded')
  })

  it('kills an agent that ignores the terminate signal once --kill-after-seconds have passed', async () => {
    const ws = await makeWorkspace(server.url)
    runner(ws, ['--kill-after-seconds', '2'])
    const { run } = await assign(ws, { sleep: 30, ignoreTerm: true })
    const seen = await agentStarted(run.id)
    await ws.client.runs.cancel(ws.companyId, run.id)
    const cancelled = Date.now()
    await waitFor(() => !alive(seen.pid), 10_000)
    expect(Date.now() - cancelled).toBeGreaterThanOrEqual(1000) // the terminate signal alone did not do it
  })

  it('stops the agent when the lease is lost, without reporting over the expiry', async () => {
    const ws = await makeWorkspace(server.url)
    const r = runner(ws)
    const { worker, run } = await assign(ws, { sleep: 30 })
    const seen = await agentStarted(run.id)
    // The runner freezes (a suspended machine, a debugger) for longer than the 2-second lease.
    const frozen = r.workerPid()!
    process.kill(frozen, 'SIGSTOP')
    try {
      await runStatus(ws, run.id, 'failed')
    } finally {
      process.kill(frozen, 'SIGCONT')
    }
    await waitFor(() => !alive(seen.pid), 15_000)
    const after = await ws.client.runs.get(ws.companyId, run.id)
    expect(after).toMatchObject({ status: 'failed', error: LEASE_EXPIRED })
    expect(r.logs().some((l) => l.msg === 'run is no longer ours; stopping the agent' && l.run_id === run.id)).toBe(true)
    // The lost run was queued again (runs/redo-lost.ts), and the runner, awake again, takes it:
    // the agent is running its redo, not left in error.
    const redo = await waitFor(async () => {
      const runs = await ws.client.runs.list(ws.companyId, { agent_id: worker.id })
      return runs.find((other) => other.id !== run.id && other.status === 'running') ?? null
    }, 15_000)
    expect(redo).toMatchObject({ task_id: run.task_id, trigger: run.trigger })
    expect((await ws.client.agents.get(ws.companyId, worker.id)).status).toBe('running')
  })

  it('a runner killed with SIGKILL: its run expires and the agent goes to error', async () => {
    const ws = await makeWorkspace(server.url)
    const r = runner(ws)
    const { worker, run } = await assign(ws, { sleep: 30 })
    await agentStarted(run.id)
    await r.stop('SIGKILL')
    const failed = await runStatus(ws, run.id, 'failed')
    expect(failed.error).toBe(LEASE_EXPIRED)
    expect((await ws.client.agents.get(ws.companyId, worker.id)).status).toBe('error')
  })
})

describe.concurrent('keeping the lease', () => {
  it('heartbeats keep a silent run alive beyond the lease', async () => {
    const ws = await makeWorkspace(server.url)
    runner(ws)
    const { run } = await assign(ws, { sleep: 3.5, reply: 'still mine' }) // the lease is 2 seconds
    await agentStarted(run.id)
    const finished = await runStatus(ws, run.id, 'succeeded')
    expect(finished.summary).toBe('still mine')
  })

  it('an agent silent past --run-timeout-seconds is stopped, and the run fails naming the limit', async () => {
    const ws = await makeWorkspace(server.url)
    runner(ws, ['--run-timeout-seconds', '4', '--kill-after-seconds', '1'])
    const { run } = await assign(ws, { sleep: 60, ignoreTerm: true }) // heartbeats keep its lease the whole time
    const seen = await agentStarted(run.id)
    const failed = await runStatus(ws, run.id, 'failed')
    expect(failed.error).toBe('stopped at the runner\'s time limit for a run, 4 s (--run-timeout-seconds): the agent had not finished')
    // Killed (it ignores the terminate signal) before the run was reported: gone, or a zombie no one reaps here.
    expect(running(seen.pid)).toBe(false)
    expect(agent.finished(run.id)).toBe(false)
  })

  it('heartbeats at least three times per lease, whatever --heartbeat-seconds says', async () => {
    const ws = await makeWorkspace(server.url)
    runner(ws, ['--heartbeat-seconds', '30']) // the lease (lease_seconds in the run context) is 2 seconds
    const { run } = await assign(ws, { sleep: 3.5, reply: 'kept by the lease' })
    await agentStarted(run.id)
    const finished = await runStatus(ws, run.id, 'succeeded')
    expect(finished.summary).toBe('kept by the lease')
  })
})

describe.concurrent('shutdown on SIGTERM', () => {
  it('lets a run in progress finish, then exits', async () => {
    const ws = await makeWorkspace(server.url)
    const r = runner(ws, ['--grace-seconds', '20'])
    const { run } = await assign(ws, { sleep: 1.5, reply: 'finished in time' })
    await agentStarted(run.id)
    expect((await ws.client.runners.list(ws.companyId)).map((x) => x.status)).toEqual(['online'])
    r.child.kill('SIGTERM')
    expect((await r.exited).code).toBe(0)
    expect(await ws.client.runs.get(ws.companyId, run.id)).toMatchObject({ status: 'succeeded', summary: 'finished in time' })
    // It said goodbye: "Stopped" at once, not "Online" until its silence makes it gone.
    expect((await ws.client.runners.list(ws.companyId)).map((x) => x.status)).toEqual(['stopped'])
    // With no agent CLI on this machine it said so at start, offering --simulate.
    expect(r.output()).toMatch(/no agent CLI found on this machine.*start this runner again with --simulate/)
  })

  it('stops runs that outlast the grace period and reports them failed', async () => {
    const ws = await makeWorkspace(server.url)
    const r = runner(ws, ['--grace-seconds', '0.5'])
    const { run } = await assign(ws, { sleep: 30 })
    const seen = await agentStarted(run.id)
    r.child.kill('SIGTERM')
    expect((await r.exited).code).toBe(0)
    await waitFor(() => !alive(seen.pid), 5000) // (a killed process may linger a moment as a zombie)
    expect(agent.finished(run.id)).toBe(false)
    expect(await ws.client.runs.get(ws.companyId, run.id)).toMatchObject({
      status: 'failed',
      error: 'the runner shut down before the run finished',
    })
  })
})

describe.concurrent('the queue', () => {
  it('two runners share one queue: every run executes once; dormant agents are skipped', async () => {
    const ws = await makeWorkspace(server.url)
    const runs = []
    for (let i = 0; i < 4; i++) runs.push((await assign(ws, { sleep: 1, reply: `done ${i}` })).run)
    const dormant = await assign(ws, { reply: 'should not run' })
    await ws.client.agents.pause(ws.companyId, dormant.worker.id)

    runner(ws, ['--runner-id', 'runner-a', '--concurrency', '1'])
    runner(ws, ['--runner-id', 'runner-b', '--concurrency', '1'])
    const finished = await Promise.all(runs.map((run) => runStatus(ws, run.id, 'succeeded')))
    expect(new Set(finished.map((run) => run.runner_id))).toEqual(new Set(['runner-a', 'runner-b']))
    const started = agent.startedRuns()
    for (const run of runs) expect(started.filter((id) => id === run.id)).toHaveLength(1)

    expect((await ws.client.runs.get(ws.companyId, dormant.run.id)).status).toBe('queued')
    expect(agent.started(dormant.run.id)).toBeNull()
  })
})

describe.concurrent('options', () => {
  it('--simulate runs every agent with the simulated adapter; --success-status done; --agent', async () => {
    const ws = await makeWorkspace(server.url)
    const { task, run, worker } = await assign(ws, { reply: 'not used' })
    const other = await assign(ws, { reply: 'not mine' })
    runner(ws, ['--simulate', '--success-status', 'done', '--agent', worker.id])
    const finished = await runStatus(ws, run.id, 'succeeded')
    expect(finished).toMatchObject({ tokens_in: 100, tokens_out: 50, cost_cents: 1 })
    expect(agent.started(run.id)).toBeNull()
    expect((await ws.client.tasks.get(ws.companyId, task.id)).status).toBe('done')
    const [comment] = await ws.client.comments.list(ws.companyId, task.id)
    expect(comment.body).toBe(`Simulated work done on ${task.key} "Long job".`)
    expect((await ws.client.runs.get(ws.companyId, other.run.id)).status).toBe('queued') // another agent's run
  })

  it('runs a project task in a worktree of its repository, with the prompt as an argument', async () => {
    const repo = tempDir('shopfloor-repo-')
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.test', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.test' } })
    git('init', '-q', '-b', 'main')
    fs.writeFileSync(path.join(repo, 'README.md'), 'widgets\n')
    git('add', 'README.md')
    git('commit', '-q', '-m', 'first')
    const cacheDir = tempDir('shopfloor-runner-cache-')

    const ws = await makeWorkspace(server.url)
    const project = await ws.client.projects.create(ws.companyId, { name: 'Widgets', repository: `file://${repo}` })
    runner(ws, ['--prompt-via', 'arg', '--cache-dir', cacheDir, '--allow-local-repositories'])
    const { task, run } = await assign(ws, { reply: 'ok' }, { project_id: project.id })
    await runStatus(ws, run.id, 'succeeded')

    const seen = agent.started(run.id)
    expect(seen.cwd).toBe(path.join(cacheDir, 'worktrees', run.id))
    expect(seen.cwdEntries).toContain('README.md')
    expect(seen.argv).toHaveLength(1)
    expect(seen.argv[0]).toContain(`# Task ${task.key}: Long job`)
    await waitFor(() => !fs.existsSync(seen.cwd), 10_000) // removed after the run's final report
  })
})
