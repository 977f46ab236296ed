// The load generator: a process of its own (never the server's), started by the harness with a
// JSON scenario (or an array of them, run one after the other) on stdin. It prints
// the JSON LoadResult (or the array of them) on stdout and exits.
//
//   closed   `connections` loops, each sending the next request as soon as the last answered
//            (requests are taken round-robin from the list), for `seconds` after `warmup` seconds
//            (and `warmupRequests` unmeasured requests per connection)
//   rate     an open loop at `rate` requests per second (login storm), whatever the answers take;
//            a request unanswered after `timeoutSeconds` counts as a `timeout` error
//   runners  `runners` runner loops that claim, report and finish runs until `total` finished
import { performance } from 'node:perf_hooks'
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
        measured++
        last = Math.max(last, done)
      }
    }
  }
  await Promise.all(Array.from({ length: s.connections }, loop))
  http.close()
  return recorder.result((last - measureFrom) / 1000)
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

async function main() {
  let text = ''
  for await (const chunk of process.stdin) text += chunk
  const input = JSON.parse(text) as Scenario | Scenario[]
  let output
  if (Array.isArray(input)) {
    output = []
    for (const scenario of input) output.push(await run(scenario))
  } else {
    output = await run(input)
  }
  process.stdout.write(`${JSON.stringify(output)}\n`)
}

main().catch((err) => {
  process.stderr.write(`load generator failed: ${err?.stack ?? err}\n`)
  process.exit(1)
})
