// The one way to start a server process and wait for it, shared by the tests (process
// restarts, signals, the runner, the CLI), the browser tests and the benchmarks: the real
// `shopfloor serve` (or `npm start`, or any script that serves HTTP) on a free port, ready once
// a path answers 200. Plain Node: nothing here depends on the test framework.
import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'

export const ROOT = path.resolve(import.meta.dirname, '..')
export const BIN = path.join(ROOT, 'bin', 'shopfloor.js')

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

// Folders made by tempDir are removed when the process exits, whatever the outcome.
const madeDirs: string[] = []
process.once('exit', () => {
  for (const dir of madeDirs) fs.rmSync(dir, { recursive: true, force: true })
})

/** A new empty folder under the system's temporary folder, removed when the process exits. */
export function tempDir(prefix = 'shopfloor-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  madeDirs.push(dir)
  return dir
}

export interface ServerProcess {
  url: string
  port: number
  pid: number
  child: ChildProcess
  /** What the process printed (stdout and stderr), or its last `outputLimit` characters. */
  output(): string
  /**
   * Sends a signal (SIGTERM by default) and waits for the exit, killing the process when it has
   * not exited after `killAfterMs`; resolves with the exit code.
   */
  stop(signal?: NodeJS.Signals, options?: { killAfterMs?: number }): Promise<number | null>
}

export interface StartOptions {
  /** Node arguments of the process; `shopfloor serve` by default. */
  args?: string[]
  /** Runs `npm start` exactly as the README says instead (signals go to its whole group). */
  npm?: boolean
  /** The path that answers 200 once the process is ready; /readyz by default. */
  readyPath?: string
  timeoutMs?: number
  /** Keep only the last this many characters of output (long-running benchmark servers). */
  outputLimit?: number
  /** Called with the process as soon as it is spawned, before it is ready. */
  onSpawn?: (child: ChildProcess) => void
}

/**
 * Spawns a server on a free port (or env.PORT) and waits until `readyPath` answers 200. The
 * environment is this process's, then SCHEDULER=off and LOG_LEVEL=warn, then `env`; a DATA_DIR
 * without a DATABASE_URL means the embedded database, whatever DATABASE_URL this process has.
 */
export async function startServer(env: Record<string, string>, options: StartOptions = {}): Promise<ServerProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort()
  const [command, args] = options.npm ? ['npm', ['start', '--silent']] : [process.execPath, options.args ?? [BIN, 'serve']]
  const embedded = env.DATA_DIR !== undefined && env.DATABASE_URL === undefined ? { DATABASE_URL: '' } : {}
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, SCHEDULER: 'off', LOG_LEVEL: 'warn', ...embedded, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.npm, // npm starts node as a child: signal the whole group
  })
  options.onSpawn?.(child)
  let output = ''
  const keep = (d: Buffer) => {
    output += d
    if (options.outputLimit && output.length > options.outputLimit) output = output.slice(-options.outputLimit)
  }
  child.stdout!.on('data', keep)
  child.stderr!.on('data', keep)
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const url = `http://127.0.0.1:${port}`
  const signal = (s: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return
    if (options.npm) process.kill(-child.pid!, s)
    else child.kill(s)
  }

  const deadline = Date.now() + (options.timeoutMs ?? 120_000)
  let answers = 0
  for (;;) {
    // Ended by a signal, a process has no exit code: it is over all the same.
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`server exited early (${child.exitCode ?? child.signalCode}):\n${output}`)
    try {
      const status = (await fetch(url + (options.readyPath ?? '/readyz'))).status
      if (status === 200) break
      answers++
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      signal('SIGKILL')
      throw new Error(`server did not become ready:\n${output}`)
    }
    // Quick polls until the server answers, then slower ones: a server that is starting answers
    // 503 meanwhile. /readyz, not /health: that allows 100 calls a minute per address (SPEC.md),
    // which the polls of many servers started from one test took from the test's own calls.
    await new Promise((r) => setTimeout(r, answers === 0 ? 100 : answers <= 20 ? 250 : 1000))
  }

  return {
    url,
    port,
    pid: child.pid!,
    child,
    output: () => output,
    async stop(s = 'SIGTERM', { killAfterMs = 30_000 } = {}) {
      signal(s)
      const killer = setTimeout(() => signal('SIGKILL'), killAfterMs)
      try {
        return await exited
      } finally {
        clearTimeout(killer)
      }
    },
  }
}
