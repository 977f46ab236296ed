// Real processes for the runner tests: the API server (`shopfloor serve`) on a database of its
// own, `shopfloor runner` processes, and a fake agent command that does what the task's
// description tells it to (print lines, report usage, sleep, write to stderr, exit with a code)
// and records what it was given (prompt, arguments, environment, working folder).
import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { ShopfloorClient } from '../../src/client/index.ts'
import { embeddedDataDir, scratchPostgres } from '../helpers.ts'

export { waitFor } from '../helpers.ts'
import { BIN, ROOT, type ServerProcess, startServer, tempDir } from '../server-process.ts'
import { sharedServer } from '../shared-server.ts'

export interface TestServer {
  server: ServerProcess
  url: string
  /** The server's environment (its database), to start it again. */
  env: Record<string, string>
  close(): Promise<void>
}

/**
 * A server of the file's own (settings in `env`, or a server it stops and starts again), on a
 * scratch PostgreSQL database, or on an embedded database in a temp folder.
 */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const scratch = await scratchPostgres()
  const dataDir = scratch ? null : embeddedDataDir()
  const serverEnv = { ...(scratch ? { DATABASE_URL: scratch.url } : { DATA_DIR: dataDir! }), ENVIRONMENT: 'test', ...env }
  const server = await startServer(serverEnv)
  const started: TestServer = {
    server,
    url: server.url,
    env: serverEnv,
    // Stops the process `server` holds now: a test that restarts the server puts the new one there.
    async close() {
      await started.server.stop()
      await scratch?.drop()
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
  return started
}

/**
 * The test worker's shared server (test/shared-server.ts), for files that need no settings of
 * their own and never stop it: close() leaves it running for the worker's next files.
 */
export async function sharedTestServer(): Promise<TestServer> {
  const server = await sharedServer()
  return { server, url: server.url, env: {}, close: async () => {} }
}

export interface Workspace {
  /** Signed in as the company's owner (a password session). */
  client: ShopfloorClient
  accessToken: string
  apiKey: string
  companyId: string
}

let made = 0
/** A person with a company and a personal API key. */
export async function makeWorkspace(url: string, company: { mission?: string } = {}): Promise<Workspace> {
  const client = new ShopfloorClient({ baseUrl: url, retry: false })
  const session = await client.auth.register({
    email: `runner-${process.pid}-${Date.now().toString(36)}-${++made}@example.test`,
    password: 'password123',
    name: 'Runner Owner',
  })
  const created = await client.companies.create({ name: `Runner Co ${made}`, task_prefix: 'RUN', ...company })
  const key = await client.apiKeys.create({ name: `runner ${made}` })
  return { client, accessToken: session.access_token, apiKey: key.key, companyId: created.id }
}

/** What the fake agent is told to do, carried in the task description. */
export interface FakePlan {
  lines?: string[]
  /** A line of `text` said `times` times, printed after `lines` (a long line's plan stays short: a task description holds 1 MiB at most). */
  repeat?: { text: string; times: number }
  usage?: { tokens_in: number; tokens_out: number; cost_cents: number }
  stderr?: string
  sleep?: number
  reply?: string
  /** The reply said this many times (a long reply's plan stays short: the prompt holds the first 8,000 characters of a description). */
  replyTimes?: number
  exit?: number
  /** Ignore the terminate signal (only a kill stops it). */
  ignoreTerm?: boolean
  /** On exit, leave a process running (`sleep 30`) that holds its standard output; its pid goes to `<run id>.background`. */
  background?: boolean
}

export function planDescription(plan: FakePlan): string {
  return `FAKE:${JSON.stringify(plan)}`
}

const FAKE_AGENT = `
import { spawn } from 'node:child_process'
import fs from 'node:fs'
const prompt = process.argv[2] ?? fs.readFileSync(0, 'utf8')
const out = process.env.FAKE_AGENT_OUT
const runId = process.env.SHOPFLOOR_RUN_ID
const match = /FAKE:(\\{.*\\})/.exec(prompt)
const plan = match ? JSON.parse(match[1]) : {}
if (plan.ignoreTerm) process.on('SIGTERM', () => {})
const env = process.env
// Written under another name and renamed, so that a test polling for it never reads half a file.
fs.writeFileSync(out + '/' + runId + '.start.tmp', JSON.stringify({
  pid: process.pid, cwd: process.cwd(), cwdEntries: fs.readdirSync('.'), env, prompt, argv: process.argv.slice(2),
  configDirEntries: fs.readdirSync(process.env.SHOPFLOOR_CONFIG_DIR),
}))
fs.renameSync(out + '/' + runId + '.start.tmp', out + '/' + runId + '.start.json')
for (const line of plan.lines ?? []) console.log(line)
if (plan.repeat) console.log(plan.repeat.text.repeat(plan.repeat.times))
if (plan.usage) console.log('SHOPFLOOR_USAGE ' + JSON.stringify(plan.usage))
if (plan.stderr) process.stderr.write(plan.stderr)
setTimeout(() => {
  fs.writeFileSync(out + '/' + runId + '.done', '')
  process.stdout.write((plan.reply ?? '').repeat(plan.replyTimes ?? 1), () => {
    if (plan.background) {
      const server = spawn('sleep', ['30'], { stdio: ['ignore', 'inherit', 'inherit'] })
      fs.writeFileSync(out + '/' + runId + '.background', String(server.pid))
      server.unref()
    }
    process.exit(plan.exit ?? 0)
  })
}, (plan.sleep ?? 0) * 1000)
`

export interface FakeAgent {
  command: string
  out: string
  /** What the agent recorded when it started for this run, once it has. */
  started(runId: string): any | null
  finished(runId: string): boolean
  startedRuns(): string[]
  /** The pid of the process it left running for a run (plan `background`). */
  backgroundPid(runId: string): number | null
}

export function fakeAgent(): FakeAgent {
  const dir = tempDir('shopfloor-fake-agent-')
  const out = path.join(dir, 'out')
  fs.mkdirSync(out)
  const script = path.join(dir, 'agent.mjs')
  fs.writeFileSync(script, FAKE_AGENT)
  const file = (runId: string, suffix: string) => path.join(out, `${runId}${suffix}`)
  return {
    // The output folder is set on the command line: the runner passes agents no variable of its own.
    command: `FAKE_AGENT_OUT="${out}" "${process.execPath}" "${script}"`,
    out,
    started: (runId) => (fs.existsSync(file(runId, '.start.json')) ? JSON.parse(fs.readFileSync(file(runId, '.start.json'), 'utf8')) : null),
    finished: (runId) => fs.existsSync(file(runId, '.done')),
    startedRuns: () => fs.readdirSync(out).filter((f) => f.endsWith('.start.json')).map((f) => f.replace('.start.json', '')),
    backgroundPid: (runId) => (fs.existsSync(file(runId, '.background')) ? Number(fs.readFileSync(file(runId, '.background'), 'utf8')) : null),
  }
}

export interface RunnerProcess {
  child: ChildProcess
  /** Log lines (JSON) the runner has written so far. */
  logs(): any[]
  output(): string
  /** The process that claims runs and starts agents (the one started hands it the key and waits): from its logs. */
  workerPid(): number | null
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/**
 * `shopfloor runner` with the given flags; the API key (or anything else) comes in `env`. Its
 * agents run unconfined (`--no-sandbox`: the fake agents write to the test's folders and their
 * process ids are read from outside) unless `sandbox` is set, as in sandbox*.test.ts.
 */
export function startRunner(args: string[], env: Record<string, string>, { sandbox = false } = {}): RunnerProcess {
  const child = spawn(process.execPath, [BIN, 'runner', ...(sandbox ? [] : ['--no-sandbox']), ...args], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', XDG_CONFIG_HOME: tempDir('shopfloor-runner-config-'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (d) => (output += d))
  child.stderr!.on('data', (d) => (output += d))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  const logs = () =>
    output
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l))
  return {
    child,
    output: () => output,
    logs,
    workerPid: () => logs().find((l) => typeof l.pid === 'number')?.pid ?? null,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * Whether a process is running. A zombie is not: an orphan that has ended stays one where PID 1
 * reaps nothing (in some containers).
 */
export function running(pid: number): boolean {
  if (!fs.existsSync('/proc/self/stat')) return alive(pid)
  try {
    return !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}

/** Kills a process the fake agent left behind (after its runner was killed). */
export function killLeftover(pid: number | undefined): void {
  if (!pid) return
  try {
    process.kill(pid, 'SIGKILL')
  } catch {
    // already gone
  }
}

export interface StandIns {
  /** Folder to put first on the runner's PATH. */
  bin: string
  /** What the stand-in recorded for a run, once it started. */
  seen(runId: string): any | null
  /** The pid of the process the stand-in left running for a run (plan `background`). */
  backgroundPid(runId: string): number | null
}

const STAND_INS = path.join(import.meta.dirname, 'stand-ins')
export const CLI_NAMES = ['claude', 'codex', 'gemini', 'opencode', 'cursor-agent'] as const

/**
 * Executables named like the real agent CLIs (stand-ins/*.mjs) in a folder of their own: each
 * prints its CLI's real output format following the plan in its prompt and records what it got.
 */
export function standIns(names: readonly string[] = CLI_NAMES): StandIns {
  const dir = tempDir('shopfloor-stand-ins-')
  const bin = path.join(dir, 'bin')
  const out = path.join(dir, 'out')
  fs.mkdirSync(bin)
  fs.mkdirSync(out)
  for (const name of names) {
    const file = path.join(bin, name)
    fs.writeFileSync(file, `#!/bin/sh\nSTANDIN_OUT="${out}" exec "${process.execPath}" "${path.join(STAND_INS, `${name}.mjs`)}" "$@"\n`)
    fs.chmodSync(file, 0o755)
  }
  return {
    bin,
    seen: (runId) => {
      const file = path.join(out, `${runId}.json`)
      return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : null
    },
    backgroundPid: (runId) => {
      const file = path.join(out, `${runId}.background`)
      return fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8').trim()) : null
    },
  }
}
