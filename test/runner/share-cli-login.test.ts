// --share-cli-login with real bubblewrap: a Claude Code stand-in, with no vendor key variable,
// uses the runner user's subscription login. It reads the login files but cannot change them,
// sees nothing else of the runner's home, and the run is billed to the plan at list price.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { ROOT, tempDir } from '../server-process.ts'
import {
  makeWorkspace, planDescription, type RunnerProcess, sharedTestServer, standIns, startRunner, type TestServer, waitFor,
} from './harness.ts'

let server: TestServer
const runners: RunnerProcess[] = []
beforeAll(async () => {
  server = await sharedTestServer()
})
afterAll(async () => {
  await Promise.all(runners.map((r) => r.stop()))
  await server?.close()
})

function plant(file: string, text: string) {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
}

async function runWith(args: string[]) {
  const ws = await makeWorkspace(server.url)
  const clis = standIns(['claude'])
  const out = path.join(path.dirname(clis.bin), 'out')
  const home = tempDir('shopfloor-runner-home-')
  plant(path.join(home, '.claude', '.credentials.json'), '{"claudeAiOauth":{"accessToken":"sk-ant-oat01-plan"}}')
  plant(path.join(home, '.claude.json'), JSON.stringify({ oauthAccount: { emailAddress: 'me@example.test' }, hasCompletedOnboarding: true, mcpServers: { db: { env: { PASSWORD: 'hunter2' } } } }))
  plant(path.join(home, 'notes', 'secret.txt'), 'runner-only')
  const runner = startRunner(
    ['--url', server.url, '--company', ws.companyId, '--heartbeat-seconds', '1', '--poll-seconds', '5', '--flush-seconds', '0.2',
      '--agent-read', path.join(ROOT, 'test', 'runner', 'stand-ins'), '--agent-write', out, ...args],
    // No ANTHROPIC_API_KEY nor any other of Claude Code's variables: only the login.
    { SHOPFLOOR_API_KEY: ws.apiKey, PATH: `${clis.bin}:${process.env.PATH}`, HOME: home, ANTHROPIC_API_KEY: '', CLAUDE_CODE_OAUTH_TOKEN: '', ANTHROPIC_AUTH_TOKEN: '' },
    { sandbox: true },
  )
  runners.push(runner)
  const agent = await ws.client.agents.hire(ws.companyId, { name: 'On a plan', adapter: 'agent_cli_1' })
  const task = await ws.client.tasks.create(ws.companyId, {
    title: 'Use the plan', assignee_agent_id: agent.id,
    description: planDescription({
      reply: 'Done.', model: 'claude-sonnet-4-5', cost: 0, usage: { input: 1000, cacheRead: 0, cacheWrite: 0, output: 500 },
      probe: ['.claude/.credentials.json', '.claude.json', path.join(home, 'notes', 'secret.txt')],
    } as any),
  })
  const done = await waitFor(async () => {
    const [latest] = await ws.client.runs.list(ws.companyId, { task_id: task.id })
    return latest && ['succeeded', 'failed'].includes(latest.status) ? latest : null
  }, 60_000)
  return { ws, clis, home, run: await ws.client.runs.get(ws.companyId, done.id) }
}

it('a subscription login in the runner\'s home, no key variable: read-only, nothing else visible, billed to the plan', async () => {
  const { clis, home, run } = await runWith(['--share-cli-login'])
  expect(run.status).toBe('succeeded')
  expect(run.billing).toBe('plan')
  expect(run.tokens_in).toBe(1000)
  expect(run.cost_cents).toBeGreaterThan(0) // the list-price equivalent of a $0 plan run
  const seen = clis.seen(run.id) as any
  expect(seen.probes['.claude/.credentials.json'].read).toBe('{"claudeAiOauth":{"accessToken":"sk-ant-oat01-plan"}}')
  expect(seen.probes['.claude/.credentials.json'].write).toBe('error EROFS')
  const settings = JSON.parse(seen.probes['.claude.json'].read.replace(/x$/, ''))
  expect(settings).toEqual({ oauthAccount: { emailAddress: 'me@example.test' }, hasCompletedOnboarding: true })
  expect(seen.probes[path.join(home, 'notes', 'secret.txt')]).toEqual({ read: 'error ENOENT', write: 'error ENOENT' })
  // The runner's own files are as they were.
  expect(fs.readFileSync(path.join(home, '.claude', '.credentials.json'), 'utf8')).toBe('{"claudeAiOauth":{"accessToken":"sk-ant-oat01-plan"}}')
  expect(run.transcript!.some((e) => e.text.includes('--share-cli-login'))).toBe(true)
})

it('without --share-cli-login the run is refused for want of a credential', async () => {
  const { run } = await runWith([])
  expect(run.status).toBe('failed')
  expect(run.error).toMatch(/^Claude Code: credentials missing: set ANTHROPIC_API_KEY/)
  expect(run.billing).toBe('api')
})
