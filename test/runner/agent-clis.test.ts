// The agent CLIs, each through a stand-in executable that prints that CLI's real output format
// (stand-ins/*.mjs), found on PATH by its usual name and run by a real runner against a real
// server: transcript roles, usage with cache tokens, cost (the CLI's own or the list price),
// the final reply, BLOCKED:, each kind of failure, the session id, the MCP server's
// configuration and the environment allow-list.
import { calcPrice } from '@pydantic/genai-prices'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Run } from '../../src/client/index.ts'
import { BIN } from '../server-process.ts'
import {
  makeWorkspace,
  planDescription,
  type RunnerProcess,
  running,
  type StandIns,
  standIns,
  startRunner,
  sharedTestServer,
  type TestServer,
  waitFor,
  type Workspace,
} from './harness.ts'

let server: TestServer
let ws: Workspace
let clis: StandIns
let runner: RunnerProcess

const SECRETS = { DATABASE_URL: 'postgres://secret@db/x', JWT_SECRET_KEY: 'jwt-secret', SMTP_PASSWORD: 'smtp-secret', REDIS_URL: 'redis://secret' }
const CREDENTIALS = { ANTHROPIC_API_KEY: 'sk-ant-test', OPENAI_API_KEY: 'sk-openai-test', GEMINI_API_KEY: 'gemini-test' }

beforeAll(async () => {
  server = await sharedTestServer()
  ws = await makeWorkspace(server.url)
  clis = standIns()
  runner = startRunner(
    ['--url', server.url, '--company', ws.companyId, '--runner-id', 'cli-runner', '--heartbeat-seconds', '1', '--poll-seconds', '5',
      '--flush-seconds', '0.2', '--agent-cli-5-command', path.join(clis.bin, 'cursor-agent')],
    {
      SHOPFLOOR_API_KEY: ws.apiKey, PATH: `${clis.bin}:${process.env.PATH}`, ...SECRETS, ...CREDENTIALS,
      CURSOR_API_KEY: 'cursor-test', CLAUDE_CODE_OAUTH_TOKEN: '', ANTHROPIC_AUTH_TOKEN: '',
    },
  )
  await waitFor(() => runner.logs().find((l) => l.msg === 'runner started'), 30_000)
})

afterAll(async () => {
  await runner?.stop()
  await server?.close()
})

async function hire(adapter: string, adapterConfig: Record<string, unknown> = {}) {
  return ws.client.agents.hire(ws.companyId, { name: `${adapter} ${Math.random().toString(36).slice(2, 7)}`, adapter, adapter_config: adapterConfig })
}

async function runTask(agentId: string, plan: Record<string, unknown>) {
  const task = await ws.client.tasks.create(ws.companyId, { title: 'Fix the build', description: planDescription(plan as any), assignee_agent_id: agentId })
  const run = await waitFor(async () => {
    const [latest] = await ws.client.runs.list(ws.companyId, { task_id: task.id })
    return latest && ['succeeded', 'failed'].includes(latest.status) ? latest : null
  }, 30_000)
  return { task, run: await ws.client.runs.get(ws.companyId, run.id) }
}

const entries = (run: Run, role: string) => (run.transcript ?? []).filter((e) => e.role === role).map((e) => e.text)
const text = (run: Run, role: string) => entries(run, role).join('')
const cents = (usd: number) => Math.ceil(Math.round(usd * 1e6) / 1e4)
/** The list price the price package gives, independently of the runner's code. */
function listCents(model: string, providerId: string, u: { input: number; cacheRead: number; cacheWrite: number; output: number }) {
  const price = calcPrice({ input_tokens: u.input + u.cacheRead + u.cacheWrite, cache_read_tokens: u.cacheRead, cache_write_tokens: u.cacheWrite, output_tokens: u.output }, model, { providerId })
  return cents(Number(price!.total_price))
}

const USAGE = { input: 1000, cacheRead: 20_000, cacheWrite: 3000, output: 800 }
const TOOLS = [
  { name: 'Bash', input: { command: 'npm test' }, output: `12 passing\n${'x'.repeat(3000)}` },
  { name: 'Read', input: { file_path: 'src/app.ts' }, output: 'export const app = 1' },
]

it('the start-up log names the CLIs found with their versions, and the runner claims them', () => {
  const found = runner.logs().find((l) => l.msg === 'agent CLIs found')
  expect(found.clis.agent_cli_1).toMatch(/^Claude Code 2\.1\.197 \(Claude Code\) \(.*\/claude\)$/)
  expect(found.clis.agent_cli_2).toMatch(/^Codex codex-cli 0\.171\.0 /)
  expect(found.clis.agent_cli_3).toMatch(/^Gemini CLI 0\.61\.0 /)
  expect(found.clis.agent_cli_4).toMatch(/^OpenCode 1\.18\.33 /)
  expect(found.clis.agent_cli_5).toContain(path.join(clis.bin, 'cursor-agent'))
  const started = runner.logs().find((l) => l.msg === 'runner started')
  expect(started.adapters).toEqual(expect.arrayContaining(['agent_cli_1', 'agent_cli_2', 'agent_cli_3', 'agent_cli_4', 'agent_cli_5', 'http', 'simulated']))
  expect(started.adapters).not.toContain('process') // no agent command
})

it('the claims tell the server the versions found, shown in the runners list', async () => {
  const runners = await waitFor(async () => {
    const list = await ws.client.runners.list(ws.companyId)
    return list.find((r) => r.runner_id === 'cli-runner')?.versions?.claude ? list : null
  })
  expect(runners.find((r) => r.runner_id === 'cli-runner')!.versions).toEqual({
    claude: '2.1.197 (Claude Code)', codex: 'codex-cli 0.171.0', gemini: '0.61.0', opencode: '1.18.33', 'cursor-agent': '2025.10.28-0a91dc2',
  })
})

describe('Claude Code (agent_cli_1)', () => {
  it('streams roles, reports usage while it runs, keeps its cost, reply and session, and gets the MCP server', async () => {
    const agent = await hire('agent_cli_1', { model: 'claude-sonnet-4-5', max_turns: 12 })
    const task = await ws.client.tasks.create(ws.companyId, {
      title: 'Fix the build', assignee_agent_id: agent.id,
      description: planDescription({ text: ['Reading the failing test.'], tools: TOOLS, reply: 'Fixed the build: a missing import.', usage: USAGE, cost: 0.1234, model: 'claude-sonnet-4-5', sleep: 2 } as any),
    })
    // Usage shows while the run goes on (the first message's share).
    const running = await waitFor(async () => {
      const [r] = await ws.client.runs.list(ws.companyId, { task_id: task.id })
      return r?.status === 'running' && r.tokens_in > 0 ? r : null
    }, 20_000)
    expect(running.tokens_in).toBeLessThan(USAGE.input + USAGE.cacheRead + USAGE.cacheWrite)
    expect(running.session_id).toBe(`claude-session-${running.id.slice(0, 8)}`)
    const run = await waitFor(async () => {
      const r = await ws.client.runs.get(ws.companyId, running.id)
      return r.status === 'succeeded' || r.status === 'failed' ? r : null
    }, 20_000)

    expect(run).toMatchObject({
      status: 'succeeded', error: null, summary: 'Fixed the build: a missing import.',
      tokens_in: USAGE.input + USAGE.cacheRead + USAGE.cacheWrite, tokens_out: USAGE.output, cost_cents: 13, // its own $0.1234
      session_id: `claude-session-${run.id.slice(0, 8)}`,
    })
    expect(text(run, 'agent')).toBe('Reading the failing test.\nFixed the build: a missing import.\n')
    // One tool entry per call: the call on its first line, then the output, clipped.
    expect(entries(run, 'tool')).toHaveLength(2)
    const [bash, read] = entries(run, 'tool')
    expect(bash.split('\n')[0]).toBe('Bash: npm test')
    expect(bash).toContain('12 passing')
    expect(bash).toContain('[... 2,011 more characters]')
    expect(read).toBe('Read: src/app.ts\nexport const app = 1\n')
    expect(text(run, 'system')).toContain('Claude Code started (model claude-sonnet-4-5')
    expect(text(run, 'system')).toContain('Usage: 24,000 tokens in (1,000 uncached, 20,000 cache read, 3,000 cache write), 800 tokens out; cost $0.1234 as reported by the CLI.')
    const comments = await ws.client.comments.list(ws.companyId, task.id)
    expect(comments.at(-1)).toMatchObject({ kind: 'comment', body: 'Fixed the build: a missing import.', author_agent_id: agent.id })

    const seen = clis.seen(run.id)
    expect(seen.argv.slice(0, 7)).toEqual(['-p', '--output-format', 'stream-json', '--verbose', '--include-partial-messages', '--permission-mode', 'bypassPermissions'])
    expect(seen.argv).toEqual(expect.arrayContaining(['--model', 'claude-sonnet-4-5', '--max-turns', '12']))
    expect(seen.argv).not.toContain('--resume') // homes are not kept: nothing to resume
    const mcpFile = seen.argv[seen.argv.indexOf('--mcp-config') + 1]
    expect(path.dirname(mcpFile)).toBe(seen.env.HOME)
    expect(JSON.parse(seen.files[mcpFile]).mcpServers.shopfloor).toEqual({
      type: 'stdio', command: process.execPath, args: [BIN, 'mcp'], alwaysLoad: true,
      env: expect.objectContaining({ SHOPFLOOR_API_KEY: '${SHOPFLOOR_API_KEY}', SHOPFLOOR_API_URL: '${SHOPFLOOR_API_URL}', SHOPFLOOR_RUN_ID: '${SHOPFLOOR_RUN_ID}' }),
    })
    expect(seen.prompt).toContain('The MCP server "shopfloor"')
    expect(seen.prompt).toContain('kind "question"')

    // The environment: an allow-list, the CLI's own credential, the run's variables, a home of its own.
    expect(seen.env).toMatchObject({ ANTHROPIC_API_KEY: 'sk-ant-test', SHOPFLOOR_RUN_ID: run.id, SHOPFLOOR_API_URL: server.url })
    expect(seen.env.SHOPFLOOR_API_KEY.split('.')).toHaveLength(3) // the run's credential, not the runner's key
    expect(JSON.stringify(seen.env)).not.toContain(ws.apiKey)
    for (const name of [...Object.keys(SECRETS), 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'CURSOR_API_KEY', 'LOG_LEVEL']) expect(seen.env[name], name).toBeUndefined()
    expect(seen.env.HOME).not.toBe(process.env.HOME)
    expect(seen.env.HOME).toBe(seen.env.SHOPFLOOR_CONFIG_DIR)
  })

  it('the agent reaches the Shopfloor MCP server as configured and acts as itself through it', async () => {
    const agent = await hire('agent_cli_1')
    const { task, run } = await runTask(agent.id, { mcp: 'Halfway there: tests pass.', reply: 'Reported.' })
    expect(run.status).toBe('succeeded')
    const [context, comment] = entries(run, 'tool')
    expect(context.split('\n')[0]).toBe('mcp__shopfloor__get_context')
    expect(context).toContain(run.id) // its own run, read through the server
    expect(comment.split('\n')[0]).toBe('mcp__shopfloor__add_comment: Halfway there: tests pass.')
    const comments = await ws.client.comments.list(ws.companyId, task.id)
    expect(comments.find((c) => c.body === 'Halfway there: tests pass.')).toMatchObject({ author_agent_id: agent.id, run_id: run.id })
  })

  it('a subscription run that reports $0 is priced at list price', async () => {
    const agent = await hire('agent_cli_1')
    const { run } = await runTask(agent.id, { reply: 'ok', usage: USAGE, cost: 0, model: 'claude-sonnet-4-5' })
    expect(run.status).toBe('succeeded')
    expect(run.cost_cents).toBe(listCents('claude-sonnet-4-5', 'anthropic', USAGE))
    expect(run.cost_cents).toBeGreaterThan(0)
    expect(text(run, 'system')).toContain('at list price (the CLI reported $0: a subscription)')
  })

  it('BLOCKED: blocks the task with a question', async () => {
    const agent = await hire('agent_cli_1')
    const { task, run } = await runTask(agent.id, { reply: 'BLOCKED: which database should I use?' })
    expect(run.status).toBe('succeeded')
    expect((await ws.client.tasks.get(ws.companyId, task.id)).status).toBe('blocked')
    expect((await ws.client.comments.list(ws.companyId, task.id)).at(-1)).toMatchObject({ kind: 'question', body: 'BLOCKED: which database should I use?' })
  })

  // A rate limit is not a failure of the agent: the run is deferred to the reset (provider-limits.test.ts).
  it('each failure fails the run saying which', async () => {
    const agent = await hire('agent_cli_1')
    const expected: Record<string, RegExp> = {
      overloaded: /^Claude Code: overloaded: API Error: 529/,
      auth: /^Claude Code: credentials refused or missing \(ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN or ANTHROPIC_AUTH_TOKEN\): Invalid API key/,
      error: /^Claude Code: error: failed \(error_during_execution\)/,
    }
    for (const [fail, message] of Object.entries(expected)) {
      const { task, run } = await runTask(agent.id, { fail })
      expect(run.status, fail).toBe('failed')
      expect(run.error).toMatch(message)
      // A failed run puts its task back where it was before the claim (API-DECISIONS.md).
      expect((await ws.client.tasks.get(ws.companyId, task.id)).status).toBe('todo')
    }
  })
})

describe('a CLI that leaves a process running on its output (a server started with &, an MCP server)', () => {
  it('the run ends with the CLI, with its whole transcript, and the process is stopped with it', async () => {
    const agent = await hire('agent_cli_1')
    const started = Date.now()
    const { run } = await runTask(agent.id, { text: ['Starting the dev server.'], reply: 'The server is up.', usage: USAGE, cost: 0.05, background: 'sleep' })
    // Not when the process would have let go of the pipe (30 s) or the lease ran out.
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(run).toMatchObject({ status: 'succeeded', summary: 'The server is up.', tokens_out: USAGE.output, cost_cents: 5 })
    expect(text(run, 'agent')).toBe('Starting the dev server.\nThe server is up.\n')
    expect(text(run, 'system')).toContain('Usage: 24,000 tokens in')
    await waitFor(() => clis.backgroundPid(run.id) && !running(clis.backgroundPid(run.id)!), 10_000)
  })

  it('one that ignores the terminate signal: the run ends once the output grace is over, and the process is killed', async () => {
    const agent = await hire('agent_cli_1')
    const started = Date.now()
    const { run } = await runTask(agent.id, { reply: 'Left it running.', background: 'ignore-term' })
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(run).toMatchObject({ status: 'succeeded', summary: 'Left it running.' })
    const pid = clis.backgroundPid(run.id)!
    expect(running(pid)).toBe(true)
    // The kill follows after --kill-after-seconds (5).
    await waitFor(() => !running(pid), 15_000)
  })
})

describe('Codex (agent_cli_2)', () => {
  it('reads its events, prices its tokens by model and passes the MCP server with -c', async () => {
    const agent = await hire('agent_cli_2', { model: 'gpt-5' })
    const { run } = await runTask(agent.id, { text: ['Checking.'], tools: [TOOLS[0]], reply: 'All green.', usage: { ...USAGE, cacheWrite: 0 } })
    expect(run).toMatchObject({
      status: 'succeeded', summary: 'All green.', session_id: `codex-session-${run.id.slice(0, 8)}`,
      tokens_in: USAGE.input + USAGE.cacheRead, tokens_out: USAGE.output,
      cost_cents: listCents('gpt-5', 'openai', { ...USAGE, cacheWrite: 0 }),
    })
    expect(text(run, 'agent')).toBe('Checking.\nAll green.\n')
    expect(entries(run, 'tool')[0].split('\n')[0]).toBe("Shell: bash -lc 'npm test'")
    const seen = clis.seen(run.id)
    // No approvals and no sandbox of Codex's own (the runner's confines it); the MCP tools approved.
    expect(seen.argv.slice(0, 4)).toEqual(['exec', '--json', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox'])
    expect(seen.argv).toEqual(expect.arrayContaining([
      '-c', `mcp_servers.shopfloor.command=${JSON.stringify(process.execPath)}`,
      '-c', `mcp_servers.shopfloor.args=${JSON.stringify([BIN, 'mcp'])}`,
      '-c', 'mcp_servers.shopfloor.default_tools_approval_mode="approve"',
      '-c', 'mcp_servers.shopfloor.required=true',
      '-m', 'gpt-5',
    ]))
    expect(seen.argv.find((a: string) => a.startsWith('mcp_servers.shopfloor.env_vars='))).toContain('"SHOPFLOOR_API_KEY"')
    expect(seen.argv.join(' ')).not.toContain(seen.env.SHOPFLOOR_API_KEY) // the credential goes by name, not on the command line
    expect(seen.argv.at(-1)).toBe('-')
    expect(seen.env.OPENAI_API_KEY).toBe('sk-openai-test')
    expect(seen.env.ANTHROPIC_API_KEY).toBeUndefined()
  })

  it('a failed turn fails the run (overloaded)', async () => {
    const agent = await hire('agent_cli_2')
    const { run } = await runTask(agent.id, { fail: 'overloaded' })
    expect(run.status).toBe('failed')
    expect(run.error).toMatch(/^Codex: overloaded: unexpected status 503 Service Unavailable/)
  })
})

describe('Gemini CLI (agent_cli_3)', () => {
  it('reads its stream, prices per model, and writes the MCP server into ~/.gemini/settings.json', async () => {
    const agent = await hire('agent_cli_3', { max_turns: 7 })
    const { run } = await runTask(agent.id, { text: ['Reading files.'], tools: [TOOLS[1]], reply: 'Summary written.', usage: { ...USAGE, cacheWrite: 0 }, model: 'gemini-2.5-pro' })
    expect(run).toMatchObject({
      status: 'succeeded', summary: 'Summary written.', session_id: `gemini-session-${run.id.slice(0, 8)}`,
      tokens_in: USAGE.input + USAGE.cacheRead, tokens_out: USAGE.output,
      cost_cents: listCents('gemini-2.5-pro', 'google', { ...USAGE, cacheWrite: 0 }),
    })
    expect(text(run, 'agent')).toBe('Reading files.\nSummary written.\n')
    expect(entries(run, 'tool')).toEqual(['Read: src/app.ts\nexport const app = 1\n'])
    const seen = clis.seen(run.id)
    expect(seen.argv).toEqual(['--output-format', 'stream-json', '--approval-mode', 'yolo'])
    const settings = JSON.parse(seen.files[path.join(seen.env.HOME, '.gemini', 'settings.json')])
    expect(settings.mcpServers.shopfloor).toMatchObject({ command: process.execPath, args: [BIN, 'mcp'], env: { SHOPFLOOR_API_KEY: '$SHOPFLOOR_API_KEY' } })
    expect(settings.model.maxSessionTurns).toBe(7)
    expect(seen.env.GEMINI_API_KEY).toBe('gemini-test')
  })

  it('counts thought tokens, which only its total holds, as tokens out, and prices them so', async () => {
    const agent = await hire('agent_cli_3')
    const usage = { input: 1000, cacheRead: 4000, cacheWrite: 0, output: 300, thoughts: 2500 }
    const { run } = await runTask(agent.id, { reply: 'Thought it through.', usage, model: 'gemini-2.5-pro' })
    const out = usage.output + usage.thoughts
    expect(run).toMatchObject({
      status: 'succeeded', tokens_in: usage.input + usage.cacheRead, tokens_out: out,
      cost_cents: listCents('gemini-2.5-pro', 'google', { ...usage, output: out }),
    })
    expect(run.cost_cents).toBeGreaterThan(listCents('gemini-2.5-pro', 'google', usage))
    expect(text(run, 'system')).toContain('Usage: 5,000 tokens in (1,000 uncached, 4,000 cache read, 0 cache write), 2,800 tokens out;')
  })

  it('an error result fails the run (credentials)', async () => {
    const agent = await hire('agent_cli_3')
    const { run } = await runTask(agent.id, { fail: 'auth' })
    expect(run.status).toBe('failed')
    expect(run.error).toMatch(/^Gemini CLI: credentials refused or missing \(GEMINI_API_KEY or GOOGLE_API_KEY or GOOGLE_APPLICATION_CREDENTIALS\): Error: \[API Error: API key not valid/)
  })
})

describe('OpenCode (agent_cli_4)', () => {
  it('adds up its steps (tokens and its own cost) and writes the MCP server into opencode.json', async () => {
    const agent = await hire('agent_cli_4', { model: 'anthropic/claude-sonnet-4-5' })
    const { task, run } = await runTask(agent.id, { tools: [TOOLS[0]], reply: 'Done with it.', usage: USAGE, cost: 0.05 })
    expect(run).toMatchObject({
      status: 'succeeded', summary: 'Done with it.', session_id: `opencode-session-${run.id.slice(0, 8)}`,
      tokens_in: USAGE.input + USAGE.cacheRead + USAGE.cacheWrite, tokens_out: USAGE.output, cost_cents: 5,
    })
    expect(entries(run, 'tool')[0].split('\n')[0]).toBe('Bash: npm test')
    const seen = clis.seen(run.id)
    // The session's title given: OpenCode then asks the model for none (a request no event would report).
    expect(seen.argv).toEqual(['run', '--format', 'json', '--print-logs', '--log-level', 'ERROR', '--model', 'anthropic/claude-sonnet-4-5', '--title', `${task.key}: Fix the build`])
    const config = JSON.parse(seen.files[path.join(seen.env.XDG_CONFIG_HOME, 'opencode', 'opencode.json')])
    expect(config.mcp.shopfloor).toEqual({
      type: 'local', command: [process.execPath, BIN, 'mcp'], enabled: true,
      environment: expect.objectContaining({ SHOPFLOOR_API_KEY: '{env:SHOPFLOOR_API_KEY}' }),
    })
  })

  it('a banner printed without a line end before the first event: kept as text, and the event glued after it is read', async () => {
    const agent = await hire('agent_cli_4')
    const { run } = await runTask(agent.id, { banner: 'Notice: a new release is available. ', text: ['First event after the banner.'], reply: 'Done.' })
    expect(run.status).toBe('succeeded')
    expect(text(run, 'system')).toContain('Notice: a new release is available. \n')
    expect(text(run, 'agent')).toContain('First event after the banner.')
  })

  it('an error event fails the run (overloaded)', async () => {
    const agent = await hire('agent_cli_4')
    const { run } = await runTask(agent.id, { fail: 'overloaded' })
    expect(run.status).toBe('failed')
    expect(run.error).toBe('OpenCode: overloaded: APIError (529): Overloaded')
  })
})

describe('Cursor Agent (agent_cli_5)', () => {
  it('reads its stream, prices its usage by model and writes ~/.cursor/mcp.json', async () => {
    const agent = await hire('agent_cli_5', { model: 'gpt-5' })
    const { run } = await runTask(agent.id, { tools: [{ name: 'read', input: { path: 'README.md' }, output: '# Hello' }], reply: 'Read it.', usage: { ...USAGE, cacheWrite: 0 } })
    expect(run).toMatchObject({
      status: 'succeeded', summary: 'Read it.', session_id: `cursor-agent-session-${run.id.slice(0, 8)}`,
      tokens_in: USAGE.input + USAGE.cacheRead, tokens_out: USAGE.output, cost_cents: listCents('gpt-5', 'openai', { ...USAGE, cacheWrite: 0 }),
    })
    expect(entries(run, 'tool')).toEqual(['read: README.md\n# Hello\n'])
    // It gives no usage before its end: the transcript says the spend guard cannot act mid-run.
    expect(text(run, 'system')).toContain('Cursor Agent reports its usage only when it ends: spend limits are checked then, not while it runs.')
    const seen = clis.seen(run.id)
    expect(seen.argv).toEqual(['-p', '--output-format', 'stream-json', '--force', '--approve-mcps', '--model', 'gpt-5'])
    const mcp = JSON.parse(seen.files[path.join(seen.env.HOME, '.cursor', 'mcp.json')])
    expect(mcp.mcpServers.shopfloor).toMatchObject({ command: process.execPath, args: [BIN, 'mcp'], env: { SHOPFLOOR_API_KEY: '${env:SHOPFLOOR_API_KEY}' } })
    expect(seen.env.CURSOR_API_KEY).toBe('cursor-test')
  })

  it('an error on standard error with a non-zero exit fails the run (overloaded)', async () => {
    const agent = await hire('agent_cli_5')
    const { run } = await runTask(agent.id, { fail: 'overloaded' })
    expect(run.status).toBe('failed')
    expect(run.error).toMatch(/^Cursor Agent: overloaded: exited with code 1: Error: API Error: 529/)
    expect(text(run, 'system')).toContain('Standard error of Cursor Agent')
  })
})
