import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { BIN } from '../../test/server-process.ts'
import { account, createCompany, createTask, get, hireAgent } from '../lib/api.ts'
import { startShopfloor } from '../lib/processes.ts'
import { dropDatabase, recreateDatabase } from '../lib/postgres.ts'
import { ms, type Section } from '../lib/report.ts'
import { quantiles } from '../lib/stats.ts'
import type { Bench } from './context.ts'

const P50_TARGET_MS = 500
const P99_TARGET_MS = 2000

/**
 * The agent: a shell that prints its own clock (nanoseconds since the epoch) as its first act,
 * inside the runner's bubblewrap sandbox, then ends. Its line reaches the run's transcript.
 */
const AGENT_COMMAND = 'date +%s%N'
const CLOCK_LINE = /^(\d{19})$/m

/** The runner's lines of one run, by message (pino's `time`, ms since the epoch). */
interface RunMarks {
  task?: string
  woken?: number
  claimed?: number
  workspace?: number
  starting?: number
}

/** Steps of a run's start, each in ms after its task's POST was answered. */
interface Start {
  woken: number
  claimed: number
  workspace: number
  starting: number
  running: number
}

/** `shopfloor runner` with the process adapter, the sandbox on, its debug lines read as they come. */
function startRunner(base: string, companyId: string, keyFile: string, workDir: string, concurrency: number) {
  const marks = new Map<string, RunMarks>()
  const woken = new Map<string, number>()
  let problem = ''
  const child: ChildProcess = spawn(
    process.execPath,
    [BIN, 'runner', '--url', base, '--company', companyId, '--api-key-file', keyFile, '--agent-command', AGENT_COMMAND,
      '--concurrency', String(concurrency), '--runner-id', 'bench-time-to-start', '--workdir', workDir, '--flush-seconds', '1'],
    { env: { ...process.env, ENVIRONMENT: 'production', LOG_LEVEL: 'debug', HOME: workDir }, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  const started = new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the runner exited ${code}: ${problem}`)))
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      let entry: { msg?: string; time?: number; run_id?: string; task?: string; level?: number }
      try {
        entry = JSON.parse(line)
      } catch {
        return
      }
      if (entry.level !== undefined && entry.level >= 50) problem = line
      if (entry.msg === 'runner started') resolve()
      if (entry.msg === 'run.created received' && entry.run_id) woken.set(entry.run_id, entry.time!)
      if (!entry.run_id) return
      const run = marks.get(entry.run_id) ?? {}
      marks.set(entry.run_id, run)
      if (entry.msg === 'run started') Object.assign(run, { claimed: entry.time, task: entry.task })
      if (entry.msg === 'workspace ready') run.workspace = entry.time
      if (entry.msg === 'agent starting') run.starting = entry.time
    })
  })
  child.stderr!.on('data', (d) => (problem = (problem + d).slice(-4000)))
  return {
    started,
    marks,
    woken,
    async stop() {
      if (child.exitCode !== null) return
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      await exited
    },
  }
}

const sleep = (msec: number) => new Promise((r) => setTimeout(r, msec))

/**
 * Workload 13: time to start. A runner connected to the event stream (sandbox on, the process
 * adapter); tasks are created with an available assignee, one at a time and 20 at once (each
 * for its own agent), and each run's start is timed from its task's POST answered to the agent
 * process running (its first act prints the clock). Each step on the way comes from the
 * runner's debug lines: run.created received, claim answered, working folder ready, agent
 * starting (the sandbox and the exec follow). Targets: p50 < 500 ms, p99 < 2 s.
 */
export async function timeToStart(bench: Bench): Promise<Section> {
  const { single, burst, agents } = bench.sizes.start
  const url = await recreateDatabase(bench.pg, bench.db('start'))
  const server = await startShopfloor({ databaseUrl: url })
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'shopfloor-bench-start-'))
  let runner: ReturnType<typeof startRunner> | null = null
  try {
    const who = await account(server.url, 'start')
    const company = await createCompany(server.url, who.apiKey, 'Start company', 'TTS')
    const agentIds: string[] = []
    for (let i = 0; i < agents; i++) agentIds.push((await hireAgent(server.url, who.apiKey, company.id, `Starter ${i + 1}`, { adapter: 'process' })).id)
    const keyFile = path.join(scratch, 'key')
    fs.writeFileSync(keyFile, who.apiKey, { mode: 0o600 })
    runner = startRunner(server.url, company.id, keyFile, scratch, agents)
    await runner.started
    await streamOpen(server.url)

    const starts = async (count: number, round: number): Promise<Start[]> => {
      const answered = new Map<string, number>()
      await Promise.all(agentIds.slice(0, count).map(async (agentId, i) => {
        const task = await createTask(server.url, who.apiKey, company.id, { title: `Start ${round}.${i}`, assignee_agent_id: agentId })
        answered.set(task.key, Date.now())
      }))
      const base = `/api/companies/${company.id}/runs`
      const deadline = Date.now() + 60_000
      for (;;) {
        const runs = [...runner!.marks.entries()].filter(([, m]) => m.task && answered.has(m.task))
        const finished = await Promise.all(runs.map(async ([id]) => get<{ status: string; transcript?: { text: string }[] }>(server.url, who.apiKey, `${base}/${id}`)))
        if (runs.length === count && finished.every((r) => ['succeeded', 'failed'].includes(r.status))) {
          return runs.map(([id, m], i) => {
            const t0 = answered.get(m.task!)!
            const clock = finished[i].transcript?.map((e) => CLOCK_LINE.exec(e.text)?.[1]).find(Boolean)
            if (!clock) throw new Error(`run ${id} printed no clock: ${JSON.stringify(finished[i]).slice(0, 500)}`)
            return {
              woken: (runner!.woken.get(id) ?? NaN) - t0,
              claimed: m.claimed! - t0,
              workspace: m.workspace! - t0,
              starting: m.starting! - t0,
              running: Number(BigInt(clock) / 1_000_000n) - t0,
            }
          })
        }
        if (Date.now() > deadline) throw new Error(`time to start: ${runs.length} of ${count} runs seen in 60 s`)
        await sleep(100)
      }
    }

    const results: { name: string; samples: Start[] }[] = []
    for (const [name, count, rounds] of [['1 agent', 1, single], [`${agents} agents at once`, agents, burst]] as const) {
      bench.log(`workload 13: ${name}, ${rounds} rounds`)
      const samples: Start[] = []
      for (let r = 0; r < rounds; r++) {
        samples.push(...(await starts(count, results.length * 1000 + r)))
        await sleep(200)
      }
      results.push({ name, samples })
    }

    const rows: string[][] = []
    const verdicts: Section['verdicts'] = []
    for (const { name, samples } of results) {
      const at = (step: keyof Start) => quantiles(samples.map((s) => s[step]))
      const running = at('running')
      rows.push([name, String(samples.length), ...(['woken', 'claimed', 'workspace', 'starting', 'running'] as const).map((step) => `${ms(at(step).p50)} / ${ms(at(step).p99)}`)])
      verdicts.push({
        target: `${name}: POST answered to agent process running, p50 < ${P50_TARGET_MS} ms and p99 < ${P99_TARGET_MS} ms, sandbox on`,
        measured: `p50 ${ms(running.p50)} ms, p99 ${ms(running.p99)} ms`,
        met: running.p50 < P50_TARGET_MS && running.p99 < P99_TARGET_MS,
      })
    }
    return {
      title: '13. Time to start: from assignment to the agent process running',
      columns: ['run', 'runs', 'run.created at the runner p50 / p99 ms', 'claim answered', 'working folder ready', 'agent starting', 'agent process running'],
      rows,
      verdicts,
      notes: [
        `One \`shopfloor runner\` (concurrency ${agents}, the process adapter, bubblewrap sandbox on) connected to the event stream; ${agents} agents. ` +
          `Tasks created through the API with an available assignee: one at a time (${single} rounds), then ${agents} at once, one per agent (${burst} rounds).`,
        'Every figure is ms after the task\'s POST was answered (the server publishes run.created before it answers). The steps: the runner received run.created (its debug line), ' +
          'its claim was answered ("run started"), the working folder was ready, it started the agent (the sandbox and the exec follow), and the agent process ran its first command, which prints the clock into the transcript.',
        `The agent command is \`${AGENT_COMMAND}\`; the sandbox is the runner's own (docs/sandbox.md); bench/sandbox-start.ts measures the sandbox alone.`,
      ],
    }
  } finally {
    await runner?.stop()
    await server.stop()
    await dropDatabase(bench.pg, bench.db('start'))
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}

/** Waits until the server holds an event stream (the runner's): /metrics `shopfloor_event_streams`. */
async function streamOpen(base: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const text = await (await fetch(`${base}/metrics`)).text()
    const open = /^shopfloor_event_streams (\d+)/m.exec(text)
    if (open && Number(open[1]) >= 1) return
    await sleep(100)
  }
  throw new Error('the runner opened no event stream in 10 s')
}
