// How a runner claims runs queued together: side by side, one claim per free slot, not one
// round trip after another (src/runner/runner.ts; bench workload 13 measures the time to start).
// Between the runner and the server, a proxy holds every claim for a while and counts the claims
// in flight at once.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { fakeAgent, makeWorkspace, planDescription, type RunnerProcess, startRunner, startTestServer, type TestServer, waitFor } from './harness.ts'

vi.setConfig({ testTimeout: 120_000 })

const CLAIM_HELD_MS = 400

let server: TestServer
let proxy: http.Server
let proxyUrl: string
let runner: RunnerProcess | null = null
const seen = { claimsInFlight: 0, mostClaimsInFlight: 0, claims: 0, streams: 0 }

beforeAll(async () => {
  server = await startTestServer()
  const target = new URL(server.url)
  proxy = http.createServer((req, res) => {
    const claim = req.method === 'POST' && /\/runs\/claim$/.test(req.url ?? '')
    if (/\/events(\?|$)/.test(req.url ?? '')) seen.streams++
    const forward = () => {
      const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
        if (claim) answer.once('end', () => seen.claimsInFlight--)
      })
      upstream.once('error', () => res.destroy())
      req.pipe(upstream)
    }
    if (!claim) return forward()
    seen.claims++
    seen.claimsInFlight++
    seen.mostClaimsInFlight = Math.max(seen.mostClaimsInFlight, seen.claimsInFlight)
    req.pause()
    setTimeout(() => {
      req.resume()
      forward()
    }, CLAIM_HELD_MS)
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
})

afterAll(async () => {
  await runner?.stop('SIGKILL')
  proxy?.closeAllConnections()
  await new Promise((resolve) => proxy?.close(resolve))
  await server?.close()
})

it('claims runs queued together side by side, each run once', async () => {
  const agent = fakeAgent()
  const ws = await makeWorkspace(server.url)
  const workers = await Promise.all(
    Array.from({ length: 4 }, (_, i) => ws.client.agents.hire(ws.companyId, { name: `Worker ${i + 1}`, adapter: 'process' })),
  )
  runner = startRunner(
    ['--url', proxyUrl, '--company', ws.companyId, '--concurrency', '4', '--flush-seconds', '0.2', '--agent-command', agent.command],
    { SHOPFLOOR_API_KEY: ws.apiKey, FAKE_AGENT_OUT: agent.out },
  )
  // Started and listening: its event stream open and its first claims (nothing queued) answered.
  await waitFor(() => seen.streams > 0 && seen.claims > 0 && seen.claimsInFlight === 0, 60_000)
  seen.mostClaimsInFlight = 0

  const tasks = await Promise.all(workers.map((worker, i) =>
    ws.client.tasks.create(ws.companyId, { title: `Together ${i + 1}`, description: planDescription({ reply: 'done' }), assignee_agent_id: worker.id })))
  const runs = await Promise.all(tasks.map(async (task) => (await ws.client.runs.list(ws.companyId, { task_id: task.id }))[0]))
  await waitFor(async () => {
    const now = await Promise.all(runs.map((run) => ws.client.runs.get(ws.companyId, run.id)))
    return now.every((run) => run.status === 'succeeded')
  }, 60_000)
  for (const run of runs) expect(agent.startedRuns().filter((id) => id === run.id)).toHaveLength(1)
  // One claim at a time would have had one in flight, and the fourth agent started four held claims late.
  expect(seen.mostClaimsInFlight).toBeGreaterThan(1)
})
