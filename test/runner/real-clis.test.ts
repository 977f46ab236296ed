// The real agent CLIs (Claude Code, Codex, Gemini CLI, OpenCode, from npm: scripts/agent-clis.mjs)
// run by a real runner in its bubblewrap sandbox (as runners run them by default) against a
// real server, each pointed at the scripted model server
// (test/model-server) instead of its vendor: the Shopfloor MCP tools offered and called (a
// subtask, a comment, both audited as the agent's, with the run), tool lines in the transcript,
// tokens and cost as the model server reported them, the final reply as the comment; the spend
// guard stopping a run within one model response of the budget; a refused key, an overloaded
// vendor and a CLI killed by a signal each failing the run with a message that says so. Each CLI
// also runs a shell command of its own from inside the sandbox (Codex with its own sandbox off),
// Claude Code reads the agent's skills where it looks for them, OpenCode is started through a
// wrapper that prints a banner before its JSON, and a CLI waiting on a model that never answers
// is ended by a second runner's time limit. A Claude Code agent whose model is overloaded runs
// its fallback model on Gemini CLI.
import { calcPrice } from '@pydantic/genai-prices'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Run } from '../../src/client/index.ts'
import { type Answered, type ModelServer, type Script, startModelServer } from '../model-server/server.ts'
import { ROOT, tempDir } from '../server-process.ts'
import { makeWorkspace, type RunnerProcess, sharedTestServer, startRunner, type TestServer, waitFor, type Workspace } from './harness.ts'

let server: TestServer
let ws: Workspace
let model: ModelServer
let runner: RunnerProcess

/** The model each CLI is told to use, and how the price package knows it. */
interface Cli {
  adapter: string
  product: string
  model: string
  providerId: string
  /** adapter_config.args that point the CLI at the model server, where no variable does. */
  args?: (url: string) => string[]
  /** The refusal the overload test sends (each vendor's own). */
  overload: number
  /** The CLI's own shell tool, called with `command`. */
  shell: (command: string) => { tool: string; args: Record<string, unknown> }
}

const CLIS: Cli[] = [
  { adapter: 'agent_cli_1', product: 'Claude Code', model: 'claude-sonnet-4-5', providerId: 'anthropic', overload: 529,
    shell: (command) => ({ tool: 'Bash', args: { command, description: 'Write the proof' } }) },
  {
    adapter: 'agent_cli_2', product: 'Codex', model: 'gpt-5-codex', providerId: 'openai', overload: 500,
    shell: (command) => ({ tool: 'exec_command', args: { cmd: command } }),
    args: (url) => ['-c', 'model_provider="scripted"', '-c',
      `model_providers.scripted={name="scripted",base_url="${url}/v1",env_key="OPENAI_API_KEY",wire_api="responses",request_max_retries=0,stream_max_retries=0}`],
  },
  { adapter: 'agent_cli_3', product: 'Gemini CLI', model: 'gemini-2.5-pro', providerId: 'google', overload: 503,
    shell: (command) => ({ tool: 'run_shell_command', args: { command } }) },
  { adapter: 'agent_cli_4', product: 'OpenCode', model: 'scripted/gpt-4.1', providerId: 'openai', overload: 529,
    shell: (command) => ({ tool: 'bash', args: { command, description: 'Write the proof' } }) },
]

/** OpenCode's provider for the model server: OpenAI's Chat Completions, at gpt-4.1's list price. */
const opencodeConfig = (url: string) => JSON.stringify({
  provider: {
    scripted: {
      npm: '@ai-sdk/openai-compatible', name: 'Scripted',
      options: { baseURL: `${url}/v1`, apiKey: '{env:OPENAI_API_KEY}' },
      models: { 'gpt-4.1': { name: 'gpt-4.1', cost: { input: 2, output: 8, cache_read: 0.5 } } },
    },
  },
})

/** Where the agents of the first runner work (no project repository): their shell calls write here. */
let workDir: string
/** A second company and runner whose runs have a time limit of TIME_LIMIT_SECONDS. */
let timedWs: Workspace
let timedRunner: RunnerProcess
// Long enough for the slowest CLI to start and reach the model on a loaded machine: OpenCode, a
// fresh home each run, took over 45 s with the file's other CLIs starting beside it.
const TIME_LIMIT_SECONDS = 90
/** OpenCode started through a script that prints a banner before the real binary's JSON. */
let bannerWrapper: string
const BANNER = 'OpenCode notice: a new release is available (this line is not JSON)'

beforeAll(async () => {
  // Installs the pinned CLIs once (CI does it in .ci/run); answers their bin folder.
  const bin = execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'agent-clis.mjs')], { encoding: 'utf8' }).trim()
  model = await startModelServer()
  server = await sharedTestServer()
  ws = await makeWorkspace(server.url)
  timedWs = await makeWorkspace(server.url)
  workDir = tempDir('shopfloor-real-clis-work-')
  // The wrapper runs the real binary from Shopfloor's own node_modules (visible in the sandbox).
  const wrappers = tempDir('shopfloor-real-clis-wrapper-')
  bannerWrapper = path.join(wrappers, 'opencode-with-banner')
  const opencodeBinary = fs.realpathSync(path.join(ROOT, 'node_modules', '.cache', 'agent-clis', 'node_modules', `opencode-${process.platform}-${process.arch}`, 'bin', 'opencode'))
  fs.writeFileSync(bannerWrapper, `#!/bin/sh\necho '${BANNER}'\necho ''\nexec '${opencodeBinary}' "$@"\n`, { mode: 0o755 })
  const pass = ['ANTHROPIC_BASE_URL', 'GOOGLE_GEMINI_BASE_URL', 'OPENCODE_CONFIG_CONTENT', 'OPENCODE_DISABLE_MODELS_FETCH',
    'OPENCODE_DISABLE_AUTOUPDATE', 'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC', 'CLAUDE_CODE_MAX_RETRIES']
  const env = {
    PATH: `${bin}:${process.env.PATH}`,
    ANTHROPIC_API_KEY: 'sk-ant-test', OPENAI_API_KEY: 'sk-openai-test', GEMINI_API_KEY: 'gemini-test',
    CLAUDE_CODE_OAUTH_TOKEN: '', ANTHROPIC_AUTH_TOKEN: '',
    ANTHROPIC_BASE_URL: model.url, GOOGLE_GEMINI_BASE_URL: model.url, OPENCODE_CONFIG_CONTENT: opencodeConfig(model.url),
    OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    // One retry of an overloaded API, not ten over minutes.
    CLAUDE_CODE_MAX_RETRIES: '1',
  }
  const common = ['--url', server.url, '--heartbeat-seconds', '1', '--poll-seconds', '5', '--flush-seconds', '0.2', '--concurrency', '4',
    '--kill-after-seconds', '2', '--allow-agent-commands', ...pass.flatMap((n) => ['--pass-env', n])]
  runner = startRunner([...common, '--company', ws.companyId, '--runner-id', 'real-clis', '--workdir', workDir],
    { ...env, SHOPFLOOR_API_KEY: ws.apiKey }, { sandbox: true })
  timedRunner = startRunner([...common, '--company', timedWs.companyId, '--runner-id', 'real-clis-timed', '--workdir', tempDir('shopfloor-real-clis-timed-'),
    '--run-timeout-seconds', String(TIME_LIMIT_SECONDS)], { ...env, SHOPFLOOR_API_KEY: timedWs.apiKey }, { sandbox: true })
  for (const r of [runner, timedRunner]) {
    const started = await waitFor(() => r.logs().find((l) => l.msg === 'runner started'), 60_000)
    // Every CLI found, in a supported version, and run confined; else each case would only wait.
    expect(started.adapters, r.output()).toEqual(expect.arrayContaining(CLIS.map((c) => c.adapter)))
    expect(r.logs().find((l) => l.msg === 'agents run in a bubblewrap sandbox'), r.output()).toBeTruthy()
  }
}, 600_000)

afterAll(async () => {
  await Promise.all([runner?.stop(), timedRunner?.stop()])
  await model?.close()
  await server?.close()
})

let hired = 0
async function hire(cli: Cli, extra: Record<string, unknown> = {}, config: Record<string, unknown> = {}, where: Workspace = ws) {
  return where.client.agents.hire(where.companyId, {
    name: `${cli.product} ${++hired}`, adapter: cli.adapter,
    adapter_config: { model: cli.model, ...(cli.args ? { args: cli.args(model.url) } : {}), ...config }, ...extra,
  } as any)
}

/** A task whose description carries the model server's script; answers the finished run. */
async function runScript(agentId: string, script: Script, timeoutMs = 150_000) {
  const task = await ws.client.tasks.create(ws.companyId, {
    title: `Scripted work ${script.tag}`, assignee_agent_id: agentId, description: `Follow the script.\nMODEL_SCRIPT:${JSON.stringify(script)}\n`,
  })
  const done = await waitFor(async () => {
    const [latest] = await ws.client.runs.list(ws.companyId, { task_id: task.id })
    return latest && ['succeeded', 'failed'].includes(latest.status) ? latest : null
  }, timeoutMs).catch(async (err) => {
    // What the run got to, for the failure's message.
    const [latest] = await ws.client.runs.list(ws.companyId, { task_id: task.id })
    const run = latest && (await ws.client.runs.get(ws.companyId, latest.id))
    throw new Error(`${err.message}: run ${run?.status ?? 'not created'}; transcript:\n${(run?.transcript ?? []).map((e) => `[${e.role}] ${e.text}`).join('').slice(-3000)}\nrunner's log:\n${runner.output().slice(-3000)}`)
  })
  return { task, run: await ws.client.runs.get(ws.companyId, done.id) }
}

const text = (run: Run, role: string) => (run.transcript ?? []).filter((e) => e.role === role).map((e) => e.text).join('')
const cents = (usd: number) => (usd > 0 ? Math.ceil(Math.round(usd * 1e6) / 1e4) : 0)

/** What the model server answered for a tag, each request priced on its own at list price. */
function reported(tag: string, cli: Cli): { input: number; output: number; usd: number; requests: Answered[] } {
  // Every request, the CLI's own side requests (a title, a check) among them: the run pays for all.
  const requests = model.log.filter((a) => a.tag === tag)
  let input = 0
  let output = 0
  let usd = 0
  for (const a of requests) {
    input += a.usage.input
    output += a.usage.output
    if (!a.usage.input && !a.usage.output) continue
    const name = cli.model.split('/').pop()!
    const price = calcPrice({ input_tokens: a.usage.input, cache_read_tokens: a.usage.cached, output_tokens: a.usage.output }, name, { providerId: cli.providerId })
    usd += Number(price!.total_price)
  }
  return { input, output, usd, requests }
}

/** Processes still running with the run's id in their environment (the CLI, its MCP server...). */
function processesOf(runId: string): number[] {
  const pids: number[] = []
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`SHOPFLOOR_RUN_ID=${runId}`) && !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'))) {
        pids.push(Number(pid))
      }
    } catch {
      // gone, or not ours to read
    }
  }
  return pids
}

/** Measured figures, printed at the end for the record. */
const figures: string[] = []
afterAll(() => {
  if (figures.length) process.stdout.write(`\nReal CLI figures:\n${figures.map((f) => `  ${f}`).join('\n')}\n`)
})

describe('a fallback on another CLI', () => {
  it('runs when the agent\'s own model is overloaded: Claude Code refused, Gemini CLI answers; the transcript says so and the run pays the fallback\'s tokens', async () => {
    const claude = CLIS[0]!
    const gemini = CLIS[2]!
    const agent = await hire(claude, {}, { fallback: [{ model: gemini.model, adapter: gemini.adapter }] })
    const tag = 'fallback-other-cli'
    const { task, run } = await runScript(agent.id, {
      tag, steps: [{ text: 'Answered by the fallback on Gemini CLI.' }], by_model: { [claude.model]: [{ status: claude.overload }] },
    })
    expect(run.error ?? null).toBeNull()
    expect(run.status).toBe('succeeded')
    expect(text(run, 'system')).toContain(`Model ${claude.model} failed (anthropic overloaded); running the fallback model ${gemini.model} on Gemini CLI.`)
    expect(model.log.filter((a) => a.tag === tag && a.model === claude.model).every((a) => a.status === claude.overload)).toBe(true)
    const sent = reported(tag, gemini)
    expect(sent.requests.some((a) => a.model === gemini.model && a.status === 200)).toBe(true)
    expect({ tokens_in: run.tokens_in, tokens_out: run.tokens_out }).toEqual({ tokens_in: sent.input, tokens_out: sent.output })
    expect(run.cost_cents).toBe(cents(sent.usd))
    const comments = await ws.client.comments.list(ws.companyId, task.id)
    expect(comments.map((c) => c.body)).toContain('Answered by the fallback on Gemini CLI.')
    expect((await ws.client.agents.get(ws.companyId, agent.id)).status).not.toBe('error')
  }, 300_000)
})

// The CLIs' cases run side by side (the runner takes four runs at once): each has its own agent,
// task and model-server tag, and CI's wall time is the longest CLI's rather than the sum.
describe.concurrent.each(CLIS)('$product, the real CLI', (cli) => {
  it('runs a shell command from inside the sandbox, calls the Shopfloor MCP tools (a subtask, a comment, audited as the agent with the run), records usage and cost as the model server reported them, and the reply is the comment', async () => {
    // Claude Code carries a skill, installed where it looks for skills; OpenCode is started through a wrapper printing a banner first.
    const skill = cli.adapter === 'agent_cli_1'
      ? await ws.client.skills.create(ws.companyId, { name: 'release-notes', description: 'Writes release notes from merged changes', body: 'List each change in one line.' } as any)
      : null
    const agent = await hire(cli, skill ? { skills: [skill.id] } : {}, cli.adapter === 'agent_cli_4' ? { command: bannerWrapper } : {})
    const tag = `work-${cli.adapter}`
    const usage = { input: 12_000, cached: 2_000, output: 300 }
    const proof = `proof-${cli.adapter}.txt`
    const { task, run } = await runScript(agent.id, {
      tag, usage, steps: [
        cli.shell(`echo shell of ${cli.adapter} > ${proof}`),
        { tool: 'create_task', args: { title: `Report of ${cli.product}` } },
        { tool: 'add_comment', args: { body: `Progress from ${cli.product}` } },
        { text: `Final reply from ${cli.product}.` },
      ],
    })
    expect(run.error ?? null).toBeNull()
    expect(run.status).toBe('succeeded')

    // The shell call ran inside the sandbox, in the run's folder (for Codex: its own sandbox did not get in the way).
    expect(fs.readFileSync(path.join(workDir, proof), 'utf8')).toBe(`shell of ${cli.adapter}\n`)

    const subtasks = await ws.client.tasks.list(ws.companyId, { parent_id: task.id })
    expect(subtasks.map((t) => t.title)).toEqual([`Report of ${cli.product}`])
    const comments = await ws.client.comments.list(ws.companyId, task.id)
    expect(comments.map((c) => c.body)).toEqual(expect.arrayContaining([`Progress from ${cli.product}`, `Final reply from ${cli.product}.`]))
    const events = await ws.client.insights.activity(ws.companyId, { limit: 200 })
    for (const [type, id] of [['task', subtasks[0].id], ['comment', comments.find((c) => c.body === `Progress from ${cli.product}`)!.id]]) {
      expect(events.find((e) => e.entity_type === type && e.entity_id === id && e.verb === 'created'), `${type} created`).toMatchObject({ actor_type: 'agent', run_id: run.id })
    }

    const tools = text(run, 'tool')
    expect(tools).toMatch(/create_task/)
    expect(tools).toMatch(/add_comment/)
    expect(tools).toContain(proof)
    expect(text(run, 'agent')).toContain(`Final reply from ${cli.product}.`)

    const sent = reported(tag, cli)
    expect(sent.requests.filter((a) => a.scripted).length).toBe(4)
    expect({ tokens_in: run.tokens_in, tokens_out: run.tokens_out }).toEqual({ tokens_in: sent.input, tokens_out: sent.output })
    expect(run.cost_cents).toBe(cents(sent.usd))
    figures.push(`${cli.product}: sent ${sent.input} in / ${sent.output} out over ${sent.requests.length} requests, ` +
      `recorded ${run.tokens_in} / ${run.tokens_out}; cost ${run.cost_cents} cents (list price per request ${cents(sent.usd)})`)

    if (skill) {
      // Claude Code found the skill in the agent's home and told the model of it, by name and description.
      const told = sent.requests.filter((a) => a.scripted && a.request.includes('release-notes'))
      expect(told.length, 'requests naming the skill').toBeGreaterThan(0)
      expect(told[0].request).toContain('Writes release notes from merged changes')
    }
    if (cli.adapter === 'agent_cli_4') {
      // The banner is kept in the transcript as a line of its own; every event after it was read.
      expect(text(run, 'system')).toContain(BANNER)
      expect(text(run, 'system')).toContain('OpenCode started (session ses_')
    }
  }, 200_000)

  it('is stopped by the spend guard within one model response of the budget; the agent is paused with a budget_override approval and nothing of the run is left running', async () => {
    const agent = await hire(cli, { monthly_budget_cents: 50 })
    const tag = `spend-${cli.adapter}`
    const usage = { input: 40_000, cached: 0, output: 4_000 }
    // Tools in turn: Gemini CLI ends a run that calls one tool the same way again and again.
    // Each answer takes a second and a half (a vendor takes longer to write 4,000 tokens): the
    // guard stops the CLI between two answers, also when the machine is busy and the runner slow
    // to act (at half a second, OpenCode once got two answers past the stop under CI's load).
    const { run } = await runScript(agent.id, { tag, usage, cycle: true, answer_ms: 1500, steps: [{ tool: 'get_context' }, { tool: 'list_agents' }] })
    expect(run.status).toBe('failed')
    expect(run.error).toMatch(/stopped at the agent's monthly budget: this run cost \d+ cents/)

    const perResponse = cents(reported(tag, cli).usd / Math.max(1, reported(tag, cli).requests.filter((a) => a.scripted).length))
    expect(run.cost_cents).toBeGreaterThanOrEqual(50)
    expect(run.cost_cents).toBeLessThan(50 + perResponse + 1)
    // The stop message gives the cost recorded at the stop.
    expect(run.error).toContain(`this run cost ${run.cost_cents} cents`)

    await waitFor(async () => (await ws.client.agents.get(ws.companyId, agent.id)).status === 'paused', 30_000)
    const approvals = await ws.client.approvals.list(ws.companyId, { status: 'pending' })
    expect(approvals.find((a: any) => a.type === 'budget_override' && a.agent_id === agent.id)).toBeTruthy()
    await waitFor(() => processesOf(run.id).length === 0, 15_000)
    // Nothing more reaches the model once the run has ended.
    const asked = reported(tag, cli).requests.length
    await new Promise((r) => setTimeout(r, 1500))
    expect(reported(tag, cli).requests.length).toBe(asked)
    const sent = reported(tag, cli)
    figures.push(`${cli.product} spend guard (budget 50 cents, 40k in / 4k out a response of ${perResponse} cents): ` +
      `${sent.requests.filter((a) => a.scripted).length} responses sent (${cents(sent.usd)} cents at list price), recorded ${run.cost_cents} cents, ` +
      `overshoot ${run.cost_cents - 50} cents`)
  }, 200_000)

  it('fails the run on a refused key (401), saying so', async () => {
    const agent = await hire(cli)
    const { run } = await runScript(agent.id, { tag: `401-${cli.adapter}`, steps: [{ status: 401 }] })
    expect(run.status).toBe('failed')
    expect(run.error).toMatch(new RegExp(`^${cli.product}: credentials refused or missing`))
  }, 200_000)

  // OpenCode retries an overloaded vendor without end, saying so only on standard error: the run ends at its third failed request.
  it(`fails the run when the vendor is overloaded (${cli.overload}), saying so`, async () => {
    const agent = await hire(cli)
    const { run } = await runScript(agent.id, { tag: `overload-${cli.adapter}`, steps: [{ status: cli.overload }] })
    expect(run.status).toBe('failed')
    expect(run.error).toMatch(new RegExp(`^${cli.product}: overloaded`))
  }, 200_000)

  if (cli.adapter === 'agent_cli_1' || cli.adapter === 'agent_cli_2') it('fails the run on a model the vendor does not have, naming it', async () => {
    const agent = await ws.client.agents.hire(ws.companyId, {
      name: `${cli.product} ${++hired}`, adapter: cli.adapter,
      adapter_config: { model: 'unknown-model-7', ...(cli.args ? { args: cli.args(model.url) } : {}) },
    } as any)
    const { run } = await runScript(agent.id, { tag: `model-${cli.adapter}`, steps: [{ text: 'never' }] })
    expect(run.status).toBe('failed')
    expect(run.error).toMatch(new RegExp(`^${cli.product}: error: .*unknown-model-7`))
  }, 200_000)

  it('fails the run when the CLI is killed by a signal, naming it, and leaves nothing running', async () => {
    const agent = await hire(cli)
    const tag = `killed-${cli.adapter}`
    const task = await ws.client.tasks.create(ws.companyId, {
      title: 'Waits on the model', assignee_agent_id: agent.id, description: `MODEL_SCRIPT:${JSON.stringify({ tag, steps: [{ hang: true }] })}\n`,
    })
    const [queued] = await waitFor(async () => {
      const runs = await ws.client.runs.list(ws.companyId, { task_id: task.id })
      return runs.length && model.log.some((a) => a.tag === tag) ? runs : null
    }, 150_000) // queued behind the other cases' runs, then the CLI's start
    try {
      // The CLI itself: the outermost process of the run that is not the sandbox's (bwrap and
      // the init it runs inside), as its parent is the runner's worker or that init.
      const pids = processesOf(queued.id)
      const bwrap = (pid: number) => {
        try {
          return path.basename(fs.readlinkSync(`/proc/${pid}/exe`)) === 'bwrap'
        } catch {
          return false
        }
      }
      const parent = (pid: number) => Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1])
      expect(pids.some(bwrap), 'the CLI runs in a bubblewrap sandbox').toBe(true)
      const cliPid = pids.find((pid) => !bwrap(pid) && !pids.some((other) => other === parent(pid) && !bwrap(other)))
      expect(cliPid).toBeTruthy()
      process.kill(cliPid!, 'SIGKILL')
      const run = await waitFor(async () => {
        const r = await ws.client.runs.get(ws.companyId, queued.id)
        return r.status === 'failed' ? r : null
      }, 30_000)
      expect(run.error).toMatch(new RegExp(`^${cli.product}: error: was killed by SIGKILL`))
      await waitFor(() => processesOf(run.id).length === 0, 15_000)
    } finally {
      // A CLI left waiting on the model would hold one of the runner's slots for the tests after.
      for (const pid of processesOf(queued.id)) {
        try {
          process.kill(pid, 'SIGKILL')
        } catch {
          // already gone
        }
      }
    }
  }, 200_000)

  it('is ended by the runner\'s time limit while it waits on a model that never answers, the run failing saying so, nothing left running', async () => {
    const agent = await hire(cli, {}, {}, timedWs)
    const tag = `timed-${cli.adapter}`
    const task = await timedWs.client.tasks.create(timedWs.companyId, {
      title: 'Waits on the model', assignee_agent_id: agent.id, description: `MODEL_SCRIPT:${JSON.stringify({ tag, steps: [{ hang: true }] })}\n`,
    })
    const run = await waitFor(async () => {
      const [latest] = await timedWs.client.runs.list(timedWs.companyId, { task_id: task.id })
      return latest && latest.status === 'failed' ? latest : null
    }, 180_000)
    // It did reach the model, and waited there: not a CLI that failed to start.
    const full = await timedWs.client.runs.get(timedWs.companyId, run.id)
    expect(model.log.some((a) => a.tag === tag && a.scripted), (full.transcript ?? []).map((e) => `[${e.role}] ${e.text}`).join('')).toBe(true)
    expect(run.error).toBe(`stopped at the runner's time limit for a run, ${TIME_LIMIT_SECONDS} s (--run-timeout-seconds): the agent had not finished`)
    await waitFor(() => processesOf(run.id).length === 0, 15_000)
  }, 240_000)
})

// Last in the file: a limit rests the provider's credential in this runner (docs/runner.md "Provider limits").
describe('a provider rate limit (429 with the vendor\'s own body)', () => {
  for (const cli of CLIS.filter((c) => c.adapter === 'agent_cli_1' || c.adapter === 'agent_cli_2')) {
    it(`${cli.product}: the run fails naming the limit, the agent stays idle, the work waits in a run queued for the reset, the runner rests ${cli.providerId}`, async () => {
      const agent = await hire(cli)
      const script = { tag: `limit-${cli.adapter}`, steps: [{ status: 429 }] }
      const task = await ws.client.tasks.create(ws.companyId, {
        title: 'Scripted limit', assignee_agent_id: agent.id, description: `Follow the script.\nMODEL_SCRIPT:${JSON.stringify(script)}\n`,
      })
      // The failed run, not its replacement queued after it.
      const failed = await waitFor(async () => (await ws.client.runs.list(ws.companyId, { task_id: task.id })).find((r) => r.status === 'failed'), 150_000)
      const run = await ws.client.runs.get(ws.companyId, failed.id)
      expect(run.error).toContain(`(${cli.providerId} rate limit, `)
      expect((await ws.client.agents.get(ws.companyId, agent.id)).status).toBe('idle')
      const queued = (await ws.client.runs.list(ws.companyId, { task_id: task.id })).filter((r) => r.status === 'queued')
      expect(queued).toHaveLength(1)
      expect(Date.parse(queued[0]!.not_before!)).toBeGreaterThan(Date.now())
      const me = await waitFor(async () => {
        const r = (await ws.client.runners.list(ws.companyId)).find((x) => x.runner_id === 'real-clis')
        return r?.cooldowns.some((c) => c.provider === cli.providerId) ? r : null
      }, 20_000)
      expect(me.cooldowns.find((c) => c.provider === cli.providerId)!.until).toEqual(expect.any(String))
    }, 200_000)
  }
})
