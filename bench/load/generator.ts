// The load generator: a process of its own (never the server's), started by the harness with a
// JSON scenario (or an array of them, run one after the other) on stdin. It prints
// the JSON LoadResult (or the array of them) on stdout and exits.
//
// With `--serve` it stays up for many load runs instead (smoke mode, bench/sizes.ts oneGenerator):
// each stdin line `{"id": 1, "input": <scenario or array>}` is run as it arrives, alongside any
// still running, and answered by a line `{"id": 1, "output": ...}` or `{"id": 1, "error": "..."}`;
// it exits once stdin closes and every run has answered.
//
//   closed   `connections` loops, each sending the next request as soon as the last answered
//            (requests are taken round-robin from the list), for `seconds` after `warmup` seconds
//            (and `warmupRequests` unmeasured requests per connection); requests with a label
//            are also measured apart, by label
//   rate     an open loop at `rate` requests per second (login storm), whatever the answers take;
//            a request unanswered after `timeoutSeconds` counts as a `timeout` error
//   runners  `runners` runner loops that claim, report and finish runs until `total` finished
import { performance } from 'node:perf_hooks'
import readline from 'node:readline'
import { Recorder } from '../lib/stats.ts'
import { type Answer, client, type RequestSpec } from './http.ts'
import { runnerLoops, type RunnerScenario } from './runners.ts'

export type Scenario =
  | {
      mode: 'closed'
      base: string
      connections: number
      seconds: number
      warmup: number
      /** Unmeasured requests each connection sends before the clock starts. */
      warmupRequests?: number
      requests: RequestSpec[]
      okStatus: number
    }
  | { mode: 'rate'; base: string; rate: number; seconds: number; timeoutSeconds: number; requests: RequestSpec[]; okStatus: number }
  | ({ mode: 'runners' } & RunnerScenario)

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function closed(s: Extract<Scenario, { mode: 'closed' }>) {
  const http = client(s.base, s.connections)
  const recorder = new Recorder()
  const labelled = new Map<string, Recorder>()
  for (const spec of s.requests) if (spec.label && !labelled.has(spec.label)) labelled.set(spec.label, new Recorder())
  let next = 0
  const warm = async () => {
    for (let i = 0; i < (s.warmupRequests ?? 0); i++) await http.send(s.requests[next++ % s.requests.length])
  }
  await Promise.all(Array.from({ length: s.connections }, warm))
  const start = performance.now()
  const measureFrom = start + s.warmup * 1000
  const end = measureFrom + s.seconds * 1000
  let last = end
  // Each loop measures at least one request, so an endpoint slower than the whole window still
  // shows its latency instead of an empty (and flattering) result.
  const loop = async () => {
    let measured = 0
    while (performance.now() < end || measured === 0) {
      const spec = s.requests[next++ % s.requests.length]
      const sent = performance.now()
      const answer: Answer = await http.send(spec)
      const done = performance.now()
      if (sent >= measureFrom) {
        recorder.record(done - sent, answer.status, answer.status === s.okStatus)
        if (spec.label) labelled.get(spec.label)!.record(done - sent, answer.status, answer.status === s.okStatus)
        measured++
        last = Math.max(last, done)
      }
    }
  }
  await Promise.all(Array.from({ length: s.connections }, loop))
  http.close()
  const seconds = (last - measureFrom) / 1000
  const result = recorder.result(seconds)
  if (labelled.size) result.byLabel = Object.fromEntries([...labelled].map(([label, r]) => [label, r.result(seconds)]))
  return result
}

async function rate(s: Extract<Scenario, { mode: 'rate' }>) {
  // Enough sockets that a slow answer never holds back the schedule.
  const http = client(s.base, Math.max(8, Math.ceil(s.rate * 2)))
  const recorder = new Recorder()
  const start = performance.now()
  const total = Math.round(s.rate * s.seconds)
  const inFlight: Promise<void>[] = []
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / s.rate
    const wait = due - performance.now()
    if (wait > 0) await sleep(wait)
    const spec = s.requests[i % s.requests.length]
    const sent = performance.now()
    inFlight.push(http.send(spec, s.timeoutSeconds * 1000).then((a) => recorder.record(performance.now() - sent, a.status, a.status === s.okStatus)))
  }
  await Promise.all(inFlight)
  http.close()
  return recorder.result((performance.now() - start) / 1000)
}

function run(scenario: Scenario) {
  return scenario.mode === 'closed' ? closed(scenario) : scenario.mode === 'rate' ? rate(scenario) : runnerLoops(scenario)
}

/** A scenario, or several one after the other. */
async function runInput(input: Scenario | Scenario[]) {
  if (!Array.isArray(input)) return run(input)
  const output = []
  for (const scenario of input) output.push(await run(scenario))
  return output
}

async function main() {
  let text = ''
  for await (const chunk of process.stdin) text += chunk
  process.stdout.write(`${JSON.stringify(await runInput(JSON.parse(text)))}\n`)
}

async function serve() {
  const answer = (message: unknown) => void process.stdout.write(`${JSON.stringify(message)}\n`)
  const running: Promise<void>[] = []
  for await (const line of readline.createInterface({ input: process.stdin })) {
    if (!line.trim()) continue
    const { id, input } = JSON.parse(line) as { id: number; input: Scenario | Scenario[] }
    running.push(runInput(input).then((output) => answer({ id, output }), (err) => answer({ id, error: String(err?.stack ?? err) })))
  }
  await Promise.all(running)
}

const work = process.argv.includes('--serve') ? serve() : main()
work.catch((err) => {
  process.stderr.write(`load generator failed: ${err?.stack ?? err}\n`)
  process.exit(1)
})
