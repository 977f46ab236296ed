// Runner settings around the agent CLIs, with real runners and a real server: the http adapter
// against a local HTTP server (server-sent events, JSON lines, one JSON reply, timeout, bearer
// secret); a runner that claims only the CLIs it has, refuses to start a CLI without its
// credentials, and runs agents' own commands only with --allow-agent-commands; kept agent homes
// that resume the CLI's session on the same task.
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Run } from '../../src/client/index.ts'
import { tempDir } from '../server-process.ts'
import {
  makeWorkspace,
  planDescription,
  type RunnerProcess,
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
let homesWs: Workspace
let clis: StandIns
let runner: RunnerProcess
let homesRunner: RunnerProcess
let agentHomes: string
let endpoint: http.Server
let endpointUrl: string
const requests: { path: string; authorization?: string; body: any }[] = []
/** Stands for what sits next to the runner (a cloud metadata service): it must never hear from an agent. */
let inside: http.Server
let insideUrl: string
const insideRequests: string[] = []

/** The local agent endpoint: one route per way of answering. */
function startEndpoint(): Promise<void> {
  endpoint = http.createServer(async (req, res) => {
    let raw = ''
    for await (const chunk of req) raw += chunk
    requests.push({ path: req.url!, authorization: req.headers.authorization, body: JSON.parse(raw) })
    if (req.headers.authorization !== undefined && req.headers.authorization !== 'Bearer s3cret') {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"bad token"}')
      return
    }
    const events = [
      { type: 'text', text: 'Working on it.\n' },
      { type: 'tool', name: 'search', input: { query: 'widgets' }, output: '3 results' },
      { type: 'usage', tokens_in: 500, tokens_out: 50, cost_cents: 2 },
      { type: 'result', reply: 'Found three widgets.', session_id: 'http-session-1', tokens_in: 900, tokens_out: 120, cache_read_tokens: 400, cost_cents: 3 },
    ]
    switch (req.url) {
      case '/sse':
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        for (const event of events) res.write(`event: message\ndata: ${JSON.stringify(event)}\n\n`)
        res.end()
        break
      case '/lines':
        res.writeHead(200, { 'content-type': 'application/x-ndjson' })
        for (const event of events) res.write(`${JSON.stringify(event)}\n`)
        res.end()
        break
      case '/json':
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ reply: 'BLOCKED: need access to the repository', session_id: 'json-1', usage: { tokens_in: 10, tokens_out: 5, cost_usd: 0.004 } }))
        break
      case '/slow':
        setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"reply":"late"}'), 5000)
        break
      case '/redirect':
        res.writeHead(302, { location: `${insideUrl}/latest/meta-data/` }).end()
        break
      case '/busy':
        res.writeHead(429, { 'content-type': 'application/json' }).end('{"error":"rate limit exceeded"}')
        break
      default:
        res.writeHead(404).end()
    }
  })
  return new Promise((resolve) => endpoint.listen(0, '127.0.0.1', () => {
    endpointUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`
    resolve()
  }))
}

beforeAll(async () => {
  inside = http.createServer((req, res) => {
    insideRequests.push(req.url!)
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"reply":"iam-role-credentials"}')
  })
  await new Promise<void>((resolve) => inside.listen(0, '127.0.0.1', resolve))
  insideUrl = `http://127.0.0.1:${(inside.address() as AddressInfo).port}`
  server = await sharedTestServer()
  ws = await makeWorkspace(server.url)
  homesWs = await makeWorkspace(server.url)
  await startEndpoint()
  // Only two of the five CLIs on this runner's PATH.
  clis = standIns(['claude', 'codex'])
  const env = {
    PATH: `${clis.bin}:/usr/bin:/bin`, ANTHROPIC_API_KEY: '', CLAUDE_CODE_OAUTH_TOKEN: '', ANTHROPIC_AUTH_TOKEN: '',
    OPENAI_API_KEY: 'sk-openai-test', AGENT_SECRET: 's3cret', EXTRA_VAR: 'extra', OTHER_VAR: 'other',
    DATABASE_URL: 'postgres://runner-secret@db/x',
  }
  runner = startRunner(
    ['--url', server.url, '--company', ws.companyId, '--runner-id', 'settings-runner', '--heartbeat-seconds', '1', '--poll-seconds', '5',
      '--flush-seconds', '0.2', '--allow-agent-commands',
      // What agents' own settings may name here; DATABASE_URL, the runner's own, stays out even so.
      '--allow-agent-env', 'EXTRA_VAR', '--allow-agent-env', 'AGENT_*', '--allow-agent-env', 'NOT_SET_ANYWHERE', '--allow-agent-env', 'DATABASE_URL',
      // The local agent endpoint is on loopback, which an http agent may reach only when allowed.
      '--allow-http-agent-url', `${endpointUrl}/*`],
    { SHOPFLOOR_API_KEY: ws.apiKey, ...env },
  )
  agentHomes = tempDir('shopfloor-agent-homes-')
  homesRunner = startRunner(
    ['--url', server.url, '--company', homesWs.companyId, '--runner-id', 'homes-runner', '--heartbeat-seconds', '1', '--poll-seconds', '5',
      '--flush-seconds', '0.2', '--agent-homes', agentHomes],
    { SHOPFLOOR_API_KEY: homesWs.apiKey, ...env },
  )
  await waitFor(() => runner.logs().find((l) => l.msg === 'runner started') && homesRunner.logs().find((l) => l.msg === 'runner started'), 30_000)
})

afterAll(async () => {
  await runner?.stop()
  await homesRunner?.stop()
  await server?.close()
  endpoint?.close()
  inside?.close()
})

async function hire(space: Workspace, adapter: string, adapterConfig: Record<string, unknown> = {}) {
  return space.client.agents.hire(space.companyId, { name: `${adapter} ${Math.random().toString(36).slice(2, 7)}`, adapter, adapter_config: adapterConfig })
}

async function finished(space: Workspace, runId: string): Promise<Run> {
  return waitFor(async () => {
    const run = await space.client.runs.get(space.companyId, runId)
    return ['succeeded', 'failed'].includes(run.status) ? run : null
  }, 30_000)
}

async function runTask(space: Workspace, agentId: string, plan: Record<string, unknown> = {}) {
  const task = await space.client.tasks.create(space.companyId, { title: 'Look for widgets', description: planDescription(plan as any), assignee_agent_id: agentId })
  const [queued] = await waitFor(async () => {
    const runs = await space.client.runs.list(space.companyId, { task_id: task.id })
    return runs.length ? runs : null
  })
  return { task, run: await finished(space, queued.id) }
}

const entries = (run: Run, role: string) => (run.transcript ?? []).filter((e) => e.role === role).map((e) => e.text)

describe('http', () => {
  it('reads server-sent events with the bearer secret named by secret_env', async () => {
    const agent = await hire(ws, 'http', { url: `${endpointUrl}/sse`, secret_env: 'AGENT_SECRET', model: 'my-model' })
    const { task, run } = await runTask(ws, agent.id)
    expect(run).toMatchObject({ status: 'succeeded', summary: 'Found three widgets.', session_id: 'http-session-1', tokens_in: 900, tokens_out: 120, cost_cents: 3 })
    expect(entries(run, 'agent').join('')).toBe('Working on it.\n')
    expect(entries(run, 'tool')).toEqual(['search: widgets\n3 results\n'])
    const request = requests.find((r) => r.body.run_id === run.id)!
    expect(request.authorization).toBe('Bearer s3cret')
    expect(request.body).toMatchObject({ model: 'my-model', session_id: null, api_url: server.url, context: { task: { id: task.id } } })
    expect(request.body.api_key.split('.')).toHaveLength(3) // the run's credential
    expect(JSON.stringify(request.body)).not.toContain(ws.apiKey)
    expect(request.body.prompt).toContain('# Task')
    expect(JSON.stringify(request.body)).not.toContain('s3cret')
  })

  it('reads JSON lines, and one JSON reply (BLOCKED: works as ever)', async () => {
    const lines = await hire(ws, 'http', { url: `${endpointUrl}/lines` })
    const { run } = await runTask(ws, lines.id)
    expect(run).toMatchObject({ status: 'succeeded', summary: 'Found three widgets.', tokens_in: 900, cost_cents: 3 })
    expect(requests.find((r) => r.body.run_id === run.id)!.authorization).toBeUndefined()

    const json = await hire(ws, 'http', { url: `${endpointUrl}/json` })
    const blocked = await runTask(ws, json.id)
    expect(blocked.run).toMatchObject({ status: 'succeeded', session_id: 'json-1', tokens_in: 10, tokens_out: 5, cost_cents: 1 })
    expect((await ws.client.tasks.get(ws.companyId, blocked.task.id)).status).toBe('blocked')
  })

  it('fails on a timeout, a missing or refused secret, and a rate limit, saying which', async () => {
    const cases: [Record<string, unknown>, string | RegExp][] = [
      [{ url: `${endpointUrl}/slow`, timeout_seconds: 1 }, 'HTTP agent: no answer within 1 seconds (timeout_seconds)'],
      [{ url: `${endpointUrl}/sse`, secret_env: 'NOT_SET_ANYWHERE' }, "HTTP agent: credentials missing: NOT_SET_ANYWHERE is not set in the runner's environment"],
      [{ url: `${endpointUrl}/sse`, secret_env: 'EXTRA_VAR' }, /^HTTP agent: credentials refused or missing \(EXTRA_VAR\): HTTP 401/],
      [{ url: `${endpointUrl}/busy` }, /^HTTP agent: rate limited: HTTP 429/],
      // An agent's settings, which any member may edit, never send the runner's own key or the
      // server's secrets anywhere.
      [{ url: `${endpointUrl}/sse`, secret_env: 'SHOPFLOOR_API_KEY' }, /^HTTP agent: secret_env refused: SHOPFLOOR_API_KEY is the runner's own/],
      [{ url: `${endpointUrl}/sse`, secret_env: 'DATABASE_URL' }, /^HTTP agent: secret_env refused: DATABASE_URL is the runner's own/],
      // Nor any variable of the runner's machine its operator did not allow (--allow-agent-env).
      [{ url: `${endpointUrl}/sse`, secret_env: 'OTHER_VAR' }, 'HTTP agent: secret_env refused: OTHER_VAR is not one this runner lets agents name (its operator may allow it with --allow-agent-env OTHER_VAR)'],
    ]
    for (const [config, error] of cases) {
      const agent = await hire(ws, 'http', config)
      const { run } = await runTask(ws, agent.id)
      expect(run.status, JSON.stringify(config)).toBe('failed')
      expect(run.error).toMatch(error)
    }
    for (const request of requests) expect(request.authorization ?? '').not.toContain(ws.apiKey)
  })
})

describe('http agents cannot reach inside', () => {
  it('follow no redirect: an agent redirected to 127.0.0.1 fails saying why, and the address hears nothing', async () => {
    const agent = await hire(ws, 'http', { url: `${endpointUrl}/redirect` })
    const { run } = await runTask(ws, agent.id)
    expect(run.status).toBe('failed')
    expect(run.error).toBe(`HTTP agent: ${endpointUrl}/redirect answered HTTP 302 redirecting to ${insideUrl}/latest/meta-data/; the http adapter follows no redirect (set the agent's url to the final address)`)
    expect(insideRequests).toEqual([])
  })

  it('refuse a loopback or private URL the operator did not allow, saying how to allow it', async () => {
    for (const [space, url] of [[ws, `${insideUrl}/latest/meta-data/`], [homesWs, `${endpointUrl}/sse`], [ws, insideUrl.replace('127.0.0.1', '[::ffff:127.0.0.1]')], [ws, insideUrl.replace('127.0.0.1', 'localhost')]] as const) {
      const agent = await hire(space, 'http', { url })
      const { run } = await runTask(space, agent.id)
      expect(run.status, url).toBe('failed')
      expect(run.error, url).toMatch(/^HTTP agent: refused to connect: \S+( \(\S+\))? is a loopback or private address, which is refused; the runner's operator may allow the URL with --allow-http-agent-url$/)
    }
    expect(insideRequests).toEqual([])
  })
})

describe('a runner with some CLIs, without credentials for one, allowing agent commands', () => {
  it('claims only the CLIs it has: a Gemini CLI run stays queued', async () => {
    const started = runner.logs().find((l) => l.msg === 'runner started')
    expect(started.adapters).toEqual(expect.arrayContaining(['agent_cli_1', 'agent_cli_2', 'process', 'http', 'simulated']))
    for (const name of ['agent_cli_3', 'agent_cli_4', 'agent_cli_5']) expect(started.adapters).not.toContain(name)
    const gemini = await hire(ws, 'agent_cli_3')
    const task = await ws.client.tasks.create(ws.companyId, { title: 'Waits', assignee_agent_id: gemini.id })
    // Another run is taken and finished meanwhile; the Gemini CLI one is left for another runner.
    const codex = await hire(ws, 'agent_cli_2')
    await runTask(ws, codex.id, { reply: 'done' })
    const [run] = await ws.client.runs.list(ws.companyId, { task_id: task.id })
    expect(run.status).toBe('queued')
  })

  it('a CLI without its credentials fails the run naming the variables, and starts nothing', async () => {
    const agent = await hire(ws, 'agent_cli_1')
    const { run } = await runTask(ws, agent.id, { reply: 'never' })
    expect(run.status).toBe('failed')
    expect(run.error).toBe("Claude Code: credentials missing: set ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN or ANTHROPIC_AUTH_TOKEN in the runner's environment (or log the CLI in as the runner's user and start the runner with --share-cli-login, or use --agent-homes and log it in there)")
    expect(clis.seen(run.id)).toBeNull()
  })

  it("runs an agent's own command and args, and passes the variables it names that the runner allows", async () => {
    const agent = await hire(ws, 'agent_cli_2', { command: path.join(clis.bin, 'codex'), args: ['--search'], env: ['EXTRA_VAR', 'DATABASE_URL', 'OTHER_VAR'] })
    const { run } = await runTask(ws, agent.id, { reply: 'custom' })
    expect(run).toMatchObject({ status: 'succeeded', summary: 'custom' })
    const seen = clis.seen(run.id)
    expect(seen.argv.slice(-2)).toEqual(['--search', '-'])
    expect(seen.env.EXTRA_VAR).toBe('extra')
    expect(seen.env.OTHER_VAR).toBeUndefined()
    // Not the runner's secrets, whatever the agent's settings name.
    expect(seen.env.DATABASE_URL).toBeUndefined()
    expect(seen.env.SHOPFLOOR_API_KEY).not.toBe(ws.apiKey)
    // Nor what the runner's operator did not allow; the transcript says what was left out.
    const notes = entries(run, 'system').join('')
    expect(notes).toContain("Not passed to the agent: DATABASE_URL is the runner's own, never sent or passed on by an agent's settings.\n")
    expect(notes).toContain('Not passed to the agent: OTHER_VAR is not one this runner lets agents name (its operator may allow it with --allow-agent-env OTHER_VAR).\n')
    expect(notes).not.toContain('EXTRA_VAR')
  })

  it('a missing executable fails the run saying so', async () => {
    const agent = await hire(ws, 'agent_cli_2', { command: '/nonexistent/codex' })
    const { run } = await runTask(ws, agent.id)
    expect(run.status).toBe('failed')
    expect(run.error).toBe('Codex: executable not found: /nonexistent/codex')
  })
})

describe('kept agent homes (--agent-homes)', () => {
  it("keep one home per agent and resume the CLI's session on the same task", async () => {
    const agent = await hire(homesWs, 'agent_cli_1')
    // No ANTHROPIC_API_KEY on this runner: a kept home may hold a login, so the CLI is started.
    const { task, run: first } = await runTask(homesWs, agent.id, { reply: 'first pass' })
    expect(first).toMatchObject({ status: 'succeeded', session_id: `claude-session-${first.id.slice(0, 8)}` })
    const home = path.join(agentHomes, agent.id)
    expect(clis.seen(first.id).env.HOME).toBe(home)
    expect(clis.seen(first.id).argv).not.toContain('--resume')
    expect(fs.existsSync(path.join(home, '.claude-ran'))).toBe(true) // kept after the run

    const second = await homesWs.client.agents.wake(homesWs.companyId, agent.id, { task_id: task.id })
    const done = await finished(homesWs, second.id)
    expect(done.status).toBe('succeeded')
    const seen = clis.seen(second.id)
    expect(seen.argv.slice(seen.argv.indexOf('--resume'), seen.argv.indexOf('--resume') + 2)).toEqual(['--resume', first.session_id])
    expect(seen.homeEntries).toContain('.claude-ran')
  })
  it("a resumed Codex thread is charged this run's tokens, not the thread's totals again", async () => {
    const agent = await hire(homesWs, 'agent_cli_2', { model: 'gpt-5' })
    const usage = { input: 1000, cacheRead: 20_000, cacheWrite: 0, output: 800 }
    const { task, run: first } = await runTask(homesWs, agent.id, { reply: 'first pass', usage })
    const own = { tokens_in: usage.input + usage.cacheRead, tokens_out: usage.output }
    expect(first).toMatchObject({ status: 'succeeded', ...own })

    const second = await homesWs.client.agents.wake(homesWs.companyId, agent.id, { task_id: task.id })
    const done = await finished(homesWs, second.id)
    // Codex reported the thread's totals (both runs); the run is charged its own share.
    const seen = clis.seen(second.id)
    expect(seen.argv.slice(seen.argv.indexOf('resume'), seen.argv.indexOf('resume') + 2)).toEqual(['resume', first.session_id])
    expect(done).toMatchObject({ status: 'succeeded', session_id: first.session_id, ...own, cost_cents: first.cost_cents })
    expect(done.transcript!.map((e) => e.text).join('')).toContain('Usage: 21,000 tokens in (1,000 uncached, 20,000 cache read, 0 cache write), 800 tokens out;')
  })
})
