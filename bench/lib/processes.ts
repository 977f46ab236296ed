// Child processes of the harness: the Shopfloor server, the bare ceiling server and the load
// generator. Each runs in its own process so that the generator never shares an event loop
// with the server it measures.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import { BIN, ROOT, startServer } from '../../test/server-process.ts'
import type { Scenario } from '../load/generator.ts'
import type { LoadResult } from './stats.ts'

export { ROOT }
const TSX = ['--import', 'tsx']

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

/**
 * CPU-seconds (user + system) a process has used so far, from /proc/<pid>/stat, or null once
 * it is gone. Differences of two readings give a process's CPU over a window, whatever else
 * the machine is doing: a figure that does not depend on the load as throughput does.
 */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name (which may hold spaces), which ends at the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name; in clock ticks (100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return null
  }
}

/**
 * CPU-seconds (user + system) the local PostgreSQL server has used so far: every process whose
 * command is postgres, with the time of its exited children (the postmaster's children are the
 * backends, so a connection that closed during a window still counts). The benchmarks only
 * ever use a PostgreSQL server on this machine (lib/postgres.ts).
 */
export function postgresCpuSeconds(): number {
  let ticks = 0
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== 'postgres') continue
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      // utime, stime, cutime and cstime: fields 14 to 17 of the line, 12 to 15 after the name.
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])
    } catch {
      // The process ended while being read.
    }
  }
  return ticks / 100
}

/** Runs `work` and answers the CPU-seconds the process `pid` used meanwhile. */
export async function cpuDuring<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; cpu: number }> {
  const before = cpuSeconds(pid) ?? 0
  const result = await work()
  return { result, cpu: (cpuSeconds(pid) ?? before) - before }
}

export interface Child {
  url: string
  pid: number
  stop(): Promise<void>
}

/** A server process started by the shared helper (test/server-process.ts), with benchmark settings. */
async function start(args: string[], env: Record<string, string>, readyPath: string): Promise<Child> {
  const server = await startServer(env, { args, readyPath, outputLimit: 20_000 })
  return {
    url: server.url,
    pid: server.pid,
    async stop() {
      await server.stop('SIGTERM', { killAfterMs: 10_000 })
    },
  }
}

/**
 * The malloc settings `npm start` gives a server on the embedded database (package.json's start
 * script; docs/operations.md "Memory"), read from there so that the two never differ.
 */
function embeddedTunables(): Record<string, string> {
  const start: string = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start
  const tunables = start.match(/glibc\.malloc\.[\w.]+=\d+/)
  return tunables ? { GLIBC_TUNABLES: tunables[0] } : {}
}

/**
 * `shopfloor serve` as an operator would run it, on PostgreSQL (`databaseUrl`) or on the
 * embedded database (`dataDir`, with `npm start`'s malloc settings). Production settings,
 * request logging off (warnings only) and no in-process scheduler, so that only the requests of
 * the workload are measured.
 */
export function startShopfloor(db: { databaseUrl: string } | { dataDir: string }): Promise<Child> {
  const env: Record<string, string> = {
    ENVIRONMENT: 'production',
    JWT_SECRET_KEY: 'benchmark-secret-not-for-real-use-0123456789',
    LOG_LEVEL: 'warn',
    SCHEDULER: 'off',
    // The workloads open many event streams on one credential, and read /metrics.
    SSE_MAX_STREAMS_PER_CREDENTIAL: '100000',
    METRICS_PUBLIC: 'true',
    ...('databaseUrl' in db ? { DATABASE_URL: db.databaseUrl } : { DATA_DIR: db.dataDir, ...embeddedTunables() }),
  }
  // Node.js flags for the server process only, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to
  // profile it (docs/benchmarks.md).
  const flags = process.env.BENCH_SERVER_NODE_FLAGS?.split(' ').filter(Boolean) ?? []
  return start([...flags, BIN, 'serve'], env, '/readyz')
}

/** The bare Fastify server of the HTTP ceilings (bench/ceilings/bare-server.ts), with `jobs` queued jobs. */
export function startBareServer(databaseUrl: string, jobs: number): Promise<Child> {
  return start([...TSX, path.join(ROOT, 'bench', 'ceilings', 'bare-server.ts')], { BENCH_DATABASE_URL: databaseUrl, BENCH_JOBS: String(jobs) }, '/constant')
}

const GENERATOR = path.join(ROOT, 'bench', 'load', 'generator.ts')

/** Runs one scenario in a load-generator process and returns what it measured. */
export function runLoad(scenario: Scenario): Promise<LoadResult> {
  return shared ? shared.run(scenario) : runScript(GENERATOR, JSON.stringify(scenario))
}

/** Several scenarios, one after the other, in one generator process (one start-up for all). */
export function runLoads(scenarios: Scenario[]): Promise<LoadResult[]> {
  return shared ? shared.run(scenarios) : runScript(GENERATOR, JSON.stringify(scenarios))
}

/** The generator that serves every load run while set (`--serve`), or null: one process per run. */
let shared: { run<T>(input: Scenario | Scenario[]): Promise<T>; close(): Promise<void> } | null = null

/**
 * From now on one generator process serves every load run (two that overlap run side by side
 * in it), until stopSharedGenerator(): smoke mode's (bench/sizes.ts, oneGenerator), where a
 * TypeScript process's start-up costs more than the load runs. Still a process of its own, as
 * every generator is.
 */
export function startSharedGenerator(): void {
  const child = spawn(process.execPath, [...TSX, GENERATOR, '--serve'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] })
  const waiting = new Map<number, { resolve(output: any): void; reject(err: Error): void }>()
  let next = 0
  let stderr = ''
  let exitCode: number | null | undefined
  child.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-20_000)))
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    const { id, output, error } = JSON.parse(line) as { id: number; output?: unknown; error?: string }
    const run = waiting.get(id)!
    waiting.delete(id)
    if (error === undefined) run.resolve(output)
    else run.reject(new Error(`load generator failed: ${error}`))
  })
  const gone = () => new Error(`the load generator exited ${exitCode}: ${stderr}`)
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      exitCode = code
      for (const run of waiting.values()) run.reject(gone())
      waiting.clear()
      resolve()
    }),
  )
  shared = {
    run: (input) =>
      new Promise((resolve, reject) => {
        if (exitCode !== undefined) return reject(gone())
        const id = next++
        waiting.set(id, { resolve, reject })
        child.stdin!.write(`${JSON.stringify({ id, input })}\n`)
      }),
    async close() {
      child.stdin!.end()
      await exited
    },
  }
}

/** Back to one generator process per load run, once the shared one has answered and exited. */
export async function stopSharedGenerator(): Promise<void> {
  const generator = shared
  shared = null
  await generator?.close()
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
    // 'close', not 'exit': at 'exit' the answer may still wait unread in the pipe.
    child.once('close', (code) => {
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
