// Child processes of the harness: the Shopfloor server, the bare ceiling server and the load
// generator. Each runs in its own process so that the generator never shares an event loop
// with the server it measures.
import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import type { Scenario } from '../load/generator.ts'
import type { LoadResult } from './stats.ts'

export const ROOT = path.resolve(import.meta.dirname, '..', '..')
const TSX = ['--import', 'tsx']

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/** Resident memory of a process in MiB (Linux /proc), or null once it is gone. */
export function rssMiB(pid: number): number | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = /VmRSS:\s+(\d+)/.exec(status)
    return kb ? Number(kb[1]) / 1024 : null
  } catch {
    return null
  }
}

/** Samples a process's resident memory while `work` runs; resolves with the peak. */
export async function peakRss<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peakMiB: number }> {
  let peak = rssMiB(pid) ?? 0
  const timer = setInterval(() => (peak = Math.max(peak, rssMiB(pid) ?? 0)), 100)
  try {
    const result = await work()
    return { result, peakMiB: Math.max(peak, rssMiB(pid) ?? 0) }
  } finally {
    clearInterval(timer)
  }
}

export interface Child {
  url: string
  pid: number
  stop(): Promise<void>
}

async function waitUntilUp(child: ChildProcess, url: string, output: () => string): Promise<void> {
  const deadline = Date.now() + 120_000
  for (let attempt = 1; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`process exited early (${child.exitCode}):\n${output()}`)
    try {
      if ((await fetch(url)).status === 200) return
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`process did not come up:\n${output()}`)
    }
    // Quick polls first, then one a second: /health allows 100 calls a minute per address.
    await new Promise((r) => setTimeout(r, attempt <= 20 ? 250 : 1000))
  }
}

async function start(args: string[], env: Record<string, string>, readyPath: string): Promise<Child> {
  const port = await freePort()
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const keep = (d: Buffer) => (output = (output + d).slice(-20_000))
  child.stdout!.on('data', keep)
  child.stderr!.on('data', keep)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = `http://127.0.0.1:${port}`
  await waitUntilUp(child, url + readyPath, () => output)
  return {
    url,
    pid: child.pid!,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(killer)
    },
  }
}

/**
 * `shopfloor serve` as an operator would run it, on PostgreSQL (`databaseUrl`) or on the
 * embedded database (`dataDir`). Production settings, request logging off (warnings only) and
 * no in-process scheduler, so that only the requests of the workload are measured.
 */
export function startShopfloor(db: { databaseUrl: string } | { dataDir: string }): Promise<Child> {
  const env: Record<string, string> = {
    ENVIRONMENT: 'production',
    JWT_SECRET_KEY: 'benchmark-secret-not-for-real-use-0123456789',
    LOG_LEVEL: 'warn',
    SCHEDULER: 'off',
    ...('databaseUrl' in db ? { DATABASE_URL: db.databaseUrl } : { DATA_DIR: db.dataDir }),
  }
  if (!('databaseUrl' in db)) env.DATABASE_URL = ''
  return start([path.join(ROOT, 'bin', 'shopfloor.js'), 'serve'], env, '/health')
}

/** The bare Fastify server of the HTTP ceilings (bench/ceilings/bare-server.ts), with `jobs` queued jobs. */
export function startBareServer(databaseUrl: string, jobs: number): Promise<Child> {
  return start([...TSX, path.join(ROOT, 'bench', 'ceilings', 'bare-server.ts')], { BENCH_DATABASE_URL: databaseUrl, BENCH_JOBS: String(jobs) }, '/constant')
}

/** Runs one scenario in a load-generator process and returns what it measured. */
export function runLoad(scenario: Scenario): Promise<LoadResult> {
  return runScript(path.join(ROOT, 'bench', 'load', 'generator.ts'), JSON.stringify(scenario))
}

/** Several scenarios, one after the other, in one generator process (one start-up for all). */
export function runLoads(scenarios: Scenario[]): Promise<LoadResult[]> {
  return runScript(path.join(ROOT, 'bench', 'load', 'generator.ts'), JSON.stringify(scenarios))
}

/**
 * A TypeScript script in a child process that reads `input` on stdin (an argument would be
 * refused by the kernel beyond 128 KiB: a full-mode scenario lists 1,000 requests) and whose
 * last stdout line is a JSON answer.
 */
function runScript<T>(script: string, input: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...TSX, script], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] })
    child.stdin!.end(input)
    let stdout = ''
    let stderr = ''
    child.stdout!.on('data', (d) => (stdout += d))
    child.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-20_000)))
    child.once('exit', (code) => {
      const last = stdout.trim().split('\n').pop() ?? ''
      if (code !== 0) return reject(new Error(`${path.basename(script)} exited ${code}: ${stderr}`))
      try {
        resolve(JSON.parse(last) as T)
      } catch {
        reject(new Error(`${path.basename(script)} printed no result: ${stdout.slice(-2000)} ${stderr}`))
      }
    })
  })
}
