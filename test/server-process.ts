// Starts the real `shopfloor serve` process (or `npm start`) for tests that need a server
// over a real socket: process restarts, signals, the runner, the CLI, the browser.
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

// Folders made by tempDir are removed when the test process exits, whatever the outcome.
const madeDirs: string[] = []
process.once('exit', () => {
  for (const dir of madeDirs) fs.rmSync(dir, { recursive: true, force: true })
})

/** A new empty folder under the system's temporary folder, removed when the tests end. */
export function tempDir(prefix = 'shopfloor-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  madeDirs.push(dir)
  return dir
}

export interface ServerProcess {
  url: string
  port: number
  child: ChildProcess
  output(): string
  /** Sends a signal and waits for the exit; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/**
 * Spawns a server and waits until /health answers 200. `npm: true` runs `npm start` exactly as
 * the README says; otherwise `node bin/shopfloor.js serve`.
 */
export async function startServer(env: Record<string, string>, options: { npm?: boolean; timeoutMs?: number } = {}): Promise<ServerProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort()
  const [command, args] = options.npm ? ['npm', ['start', '--silent']] : [process.execPath, [BIN, 'serve']]
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, SCHEDULER: 'off', LOG_LEVEL: 'warn', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.npm, // npm starts node as a child: signal the whole group
  })
  let output = ''
  child.stdout!.on('data', (d) => (output += d))
  child.stderr!.on('data', (d) => (output += d))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + (options.timeoutMs ?? 60_000)
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}):\n${output}`)
    try {
      const res = await fetch(`${url}/health`)
      if (res.status === 200) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`server did not become healthy:\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    url,
    port,
    child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) {
        if (options.npm) process.kill(-child.pid!, signal)
        else child.kill(signal)
      }
      return exited
    },
  }
}
