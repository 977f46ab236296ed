// One runner process with the fake agent command serves every test here; each test gives its
// task a plan and checks what became of the run, the task and its comments.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Run } from '../../src/client/index.ts'
import { ROOT } from '../server-process.ts'
import {
  type FakeAgent,
  fakeAgent,
  makeWorkspace,
  type FakePlan,
  planDescription,
  type RunnerProcess,
  running,
  startRunner,
  sharedTestServer,
  type TestServer,
  waitFor,
  type Workspace,
} from './harness.ts'

let server: TestServer
let ws: Workspace
let agent: FakeAgent
let runner: RunnerProcess

beforeAll(async () => {
  server = await sharedTestServer()
  ws = await makeWorkspace(server.url, { mission: 'Make the best widgets in the valley.' })
  agent = fakeAgent()
  runner = startRunner(
    ['--url', server.url, '--company', ws.companyId, '--runner-id', 'outcomes-runner', '--heartbeat-seconds', '1', '--poll-seconds', '5',
      '--flush-seconds', '0.2', '--agent-command', agent.command, '--pass-env', 'PASSED_ON'],
    // Secrets of the runner's machine that must never reach an agent, and one passed on by name.
    { SHOPFLOOR_API_KEY: ws.apiKey, DATABASE_URL: 'postgres://secret@db/x', JWT_SECRET_KEY: 'jwt-secret', SMTP_PASSWORD: 'smtp-secret',
      REDIS_URL: 'redis://secret', SHOPFLOOR_AGENT_COMMAND: 'not-for-agents', PASSED_ON: 'passed', LANG: 'C.UTF-8', LC_TIME: 'C' },
  )
})

afterAll(async () => {
  await runner?.stop()
  await server?.close()
})

async function hire(fields: Record<string, unknown> = {}) {
  return ws.client.agents.hire(ws.companyId, { name: `Agent ${Math.random().toString(36).slice(2, 7)}`, adapter: 'process', ...fields })
}

/** Assigns a task with the plan to the agent and waits for its run to finish. */
async function runTask(agentId: string, plan: FakePlan, extra: Record<string, unknown> = {}) {
  const task = await ws.client.tasks.create(ws.companyId, { title: 'Write the weekly report', description: planDescription(plan), assignee_agent_id: agentId, ...extra })
  const run = await waitFor(async () => {
    const [latest] = await ws.client.runs.list(ws.companyId, { task_id: task.id })
    return latest && ['succeeded', 'failed', 'cancelled'].includes(latest.status) ? latest : null
  })
  return { task, run: await ws.client.runs.get(ws.companyId, run.id) }
}

const transcriptText = (run: Run) => (run.transcript ?? []).map((e) => e.text).join('')

describe('a successful run', () => {
  it('reports usage and summary, posts the reply as the agent, and moves the task to in_review', async () => {
    const manager = await hire({ name: 'Morgan Manager' })
    const worker = await hire({ name: 'Wren Worker', title: 'Report writer', instructions: 'Always cite your sources.', reports_to_id: manager.id })
    const parentGoal = await ws.client.goals.create(ws.companyId, { title: 'Win the market' })
    const goal = await ws.client.goals.create(ws.companyId, { title: 'Ship weekly reports', parent_id: parentGoal.id })
    // A task created in backlog (no run yet) gets a comment, then is assigned work.
    const draft = await ws.client.tasks.create(ws.companyId, { title: 'Draft', status: 'backlog' })
    await ws.client.comments.create(ws.companyId, draft.id, { body: 'Please include the sales figures.' })

    const plan = { lines: ['Gathering numbers', 'Writing'], usage: { tokens_in: 1200, tokens_out: 340, cost_cents: 4 }, reply: 'Report written: sales up 4%.' }
    const task = await ws.client.tasks.create(ws.companyId, { title: 'Weekly report', description: planDescription(plan), goal_id: goal.id, status: 'backlog' })
    await ws.client.comments.create(ws.companyId, task.id, { body: 'Use the new template.' })
    await ws.client.tasks.update(ws.companyId, task.id, { assignee_agent_id: worker.id, status: 'todo' })
    const finished = await waitFor(async () => {
      const [latest] = await ws.client.runs.list(ws.companyId, { task_id: task.id })
      return latest?.status === 'succeeded' || latest?.status === 'failed' ? latest : null
    })
    const run = await ws.client.runs.get(ws.companyId, finished.id)

    expect(run).toMatchObject({
      status: 'succeeded', runner_id: 'outcomes-runner', tokens_in: 1200, tokens_out: 340, cost_cents: 4,
      summary: 'Gathering numbers\nWriting\nReport written: sales up 4%.', error: null,
    })
    expect(transcriptText(run)).toContain('Gathering numbers\nWriting\n')
    // The first line says the agent ran unconfined (this runner has --no-sandbox, test/runner/harness.ts).
    expect(transcriptText(run)).toContain('Runner outcomes-runner started the run (adapter process). Without a sandbox (--no-sandbox)')
    expect(transcriptText(run)).not.toContain('SHOPFLOOR_USAGE')

    expect((await ws.client.tasks.get(ws.companyId, task.id)).status).toBe('in_review')
    const comments = await ws.client.comments.list(ws.companyId, task.id)
    expect(comments.at(-1)).toMatchObject({ kind: 'comment', body: run.summary, author_agent_id: worker.id, run_id: run.id })
    expect((await ws.client.agents.get(ws.companyId, worker.id)).status).toBe('idle')

    const seen = agent.started(run.id)
    expect(seen.argv).toEqual([]) // the prompt came on standard input
    expect(seen.prompt).toContain('Make the best widgets in the valley.')
    expect(seen.prompt).toContain('# You are Wren Worker (Report writer, engineer)')
    expect(seen.prompt).toContain('You report to Morgan Manager.')
    expect(seen.prompt).toContain('Always cite your sources.')
    expect(seen.prompt).toContain(`# Task ${task.key}: Weekly report`)
    expect(seen.prompt).toContain('Use the new template.')
    expect(seen.prompt).not.toContain('Please include the sales figures.')
    expect(seen.prompt.indexOf('Ship weekly reports')).toBeLessThan(seen.prompt.indexOf('Win the market'))
    expect(seen.env).toMatchObject({
      SHOPFLOOR_API_URL: server.url,
      SHOPFLOOR_RUN_ID: run.id,
      SHOPFLOOR_AGENT_ID: worker.id,
      SHOPFLOOR_AGENT_NAME: 'Wren Worker',
      SHOPFLOOR_COMPANY_ID: ws.companyId,
      SHOPFLOOR_TASK_KEY: task.key,
    })
    // The run's own credential (a JWT), never the runner's API key.
    expect(seen.env.SHOPFLOOR_API_KEY).not.toBe(ws.apiKey)
    expect(seen.env.SHOPFLOOR_API_KEY.split('.')).toHaveLength(3)
    expect(seen.cwd).toBe(ROOT) // no project repository: the runner's work folder
    expect(seen.env.XDG_CONFIG_HOME).toBe(seen.env.SHOPFLOOR_CONFIG_DIR)
    expect(seen.configDirEntries).toEqual([])
    // The allow-list: the basics, the named variable, the run's own; nothing else of the runner's.
    expect(seen.env).toMatchObject({ PATH: process.env.PATH, PASSED_ON: 'passed', LANG: 'C.UTF-8', LC_TIME: 'C' })
    for (const secret of ['DATABASE_URL', 'JWT_SECRET_KEY', 'SMTP_PASSWORD', 'REDIS_URL', 'SHOPFLOOR_AGENT_COMMAND', 'LOG_LEVEL']) {
      expect(seen.env[secret], secret).toBeUndefined()
    }
    // The run's home, never the runner's, and a git identity of the agent's own, not the runner user's settings.
    expect(seen.env.HOME).toBe(seen.env.SHOPFLOOR_CONFIG_DIR)
    expect(seen.env).toMatchObject({
      GIT_AUTHOR_NAME: 'Wren Worker', GIT_AUTHOR_EMAIL: `${worker.id}@agents.invalid`,
      GIT_COMMITTER_NAME: 'Wren Worker', GIT_COMMITTER_EMAIL: `${worker.id}@agents.invalid`,
    })
    expect(seen.env.GIT_CONFIG_GLOBAL).toBeUndefined()
  })

  it('runs a wake without a task: the prompt says why and that there is no task, and nothing is posted', async () => {
    const worker = await hire()
    const woken = await ws.client.agents.wake(ws.companyId, worker.id, { reason: 'Morning check' })
    const run = await waitFor(async () => {
      const current = await ws.client.runs.get(ws.companyId, woken.id)
      return current.status === 'succeeded' ? current : null
    })
    expect(run.transcript![0]).toMatchObject({ role: 'system', text: 'Morning check' })
    const seen = agent.started(run.id)
    expect(seen.prompt).toContain('# Why you were woken\nMorning check\n')
    expect(seen.prompt).toContain('# No task is attached to this run')
    expect(seen.env.SHOPFLOOR_TASK_KEY).toBe('')
  })

  it('clips the comment to 8,000 characters and the summary to 2,000', async () => {
    const worker = await hire()
    const { task, run } = await runTask(worker.id, { reply: 'x', replyTimes: 9000 })
    expect(run.status).toBe('succeeded')
    expect(run.summary).toHaveLength(2000)
    const [comment] = await ws.client.comments.list(ws.companyId, task.id)
    expect(comment.body).toHaveLength(8000)
  })
})

describe('output the API would refuse', () => {
  it('a NUL byte and a line of a million characters: the run finishes with its cost and transcript', async () => {
    const worker = await hire()
    const { run } = await runTask(worker.id, {
      lines: ['reading file: \u0000\u0001 binary'],
      repeat: { text: 'y', times: 1_200_000 },
      usage: { tokens_in: 100, tokens_out: 50, cost_cents: 40 },
      reply: 'done',
    })
    expect(run).toMatchObject({ status: 'succeeded', cost_cents: 40, tokens_in: 100 })
    const text = transcriptText(run)
    expect(text).toContain('reading file: \uFFFD\u0001 binary')
    expect(text).toContain('y'.repeat(100_000))
  })
})

describe('other outcomes', () => {
  it('an agent that leaves a process running on its output: the run ends with the agent, and so does the process', async () => {
    const worker = await hire()
    const started = Date.now()
    const { run } = await runTask(worker.id, { lines: ['Starting the dev server'], reply: 'Server is up', background: true })
    // Not when the process it left would have let go of the pipe (30 s) or the lease ran out.
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(run).toMatchObject({ status: 'succeeded', summary: 'Starting the dev server\nServer is up' })
    expect(transcriptText(run)).toContain('Starting the dev server\nServer is up\n')
    // Stopped with the agent's process group.
    const pid = agent.backgroundPid(run.id)!
    expect(pid).toBeGreaterThan(0)
    await waitFor(() => !running(pid), 10_000)
  })

  it('a failing agent fails the run with the tail of its stderr and leaves the task where it was', async () => {
    const worker = await hire()
    const stderr = `${'noise '.repeat(1000)}fatal: the database is on fire`
    const { task, run } = await runTask(worker.id, { lines: ['starting'], stderr, exit: 3 })
    expect(run.status).toBe('failed')
    expect(run.error).toMatch(/^agent command exited with code 3: /)
    expect(run.error).toHaveLength(2000)
    expect(run.error).toMatch(/fatal: the database is on fire$/)
    // The transcript keeps the last 4,000 characters of stderr.
    expect(transcriptText(run)).toContain(`Standard error of the agent (last 4000 characters):\n${stderr.slice(-4000).trim()}\n`)
    // Back to the status it had before the claim moved it to in_progress (API-DECISIONS.md).
    expect(task.status).not.toBe('in_progress')
    expect((await ws.client.tasks.get(ws.companyId, task.id)).status).toBe(task.status)
    expect(await ws.client.comments.list(ws.companyId, task.id)).toEqual([])
    expect((await ws.client.agents.get(ws.companyId, worker.id)).status).toBe('error')
  })

  it('a reply beginning with BLOCKED: blocks the task and is posted as a question', async () => {
    const worker = await hire()
    const { task, run } = await runTask(worker.id, { reply: 'BLOCKED: I need read access to the sales database.' })
    expect(run.status).toBe('succeeded')
    expect((await ws.client.tasks.get(ws.companyId, task.id)).status).toBe('blocked')
    const [comment] = await ws.client.comments.list(ws.companyId, task.id)
    expect(comment).toMatchObject({ kind: 'question', body: 'BLOCKED: I need read access to the sales database.', author_agent_id: worker.id })
  })

  it('a repository that cannot be cloned fails the run before the agent starts, saying only that and the address', async () => {
    const worker = await hire()
    // Port 9 (discard) on this machine: closed. What answered (refused, open, timed out) is not the run's to tell.
    const project = await ws.client.projects.create(ws.companyId, { name: 'Ghost', repository: 'https://127.0.0.1:9/missing.git' })
    const { run } = await runTask(worker.id, {}, { project_id: project.id })
    expect(run.status).toBe('failed')
    expect(run.error).toBe('could not prepare the working folder: could not clone https://127.0.0.1:9/missing.git')
    expect(agent.started(run.id)).toBeNull()
  })

  it('an agent whose adapter is simulated gets the built-in simulated adapter', async () => {
    const worker = await hire({ adapter: 'simulated' })
    const { task, run } = await runTask(worker.id, { reply: 'not used' })
    expect(run).toMatchObject({ status: 'succeeded', tokens_in: 100, tokens_out: 50, cost_cents: 1 })
    expect(agent.started(run.id)).toBeNull()
    expect((await ws.client.tasks.get(ws.companyId, task.id)).status).toBe('in_review')
  })

  it('an http agent without a URL fails saying so', async () => {
    const worker = await hire({ adapter: 'http' })
    const { run } = await runTask(worker.id, {})
    expect(run.status).toBe('failed')
    expect(run.error).toBe('HTTP agent: the agent has no adapter_config.url')
  })

  it("ignores an agent's own command and args on a runner without --allow-agent-commands", async () => {
    const worker = await hire({ adapter_config: { command: 'echo hijacked', args: ['--evil'] } })
    const { run } = await runTask(worker.id, { reply: 'ran the runner command' })
    expect(run).toMatchObject({ status: 'succeeded', summary: 'ran the runner command' })
    expect(agent.started(run.id).argv).toEqual([])
    expect(transcriptText(run)).toContain('adapter_config command and args are ignored')
  })
})
