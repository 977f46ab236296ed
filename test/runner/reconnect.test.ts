// The runner follows the live event stream through a server restart: it reconnects with the
// spec's backoff and claims on reconnection and on run.created, not waiting for its poll. The
// runners here wait a twentieth of the reference times between attempts (--backoff-scale), so
// that what a test waits for is the server restarting, not the backoff.
import { afterAll, expect, it } from 'vitest'
import { startServer } from '../server-process.ts'
import { fakeAgent, makeWorkspace, planDescription, startRunner, startTestServer, type TestServer, waitFor } from './harness.ts'

/** --backoff-scale of every runner here: the stream reconnects after 0.1, 0.2, 0.4... s. */
const BACKOFF = ['--backoff-scale', '0.05']

let server: TestServer
let restarted: Awaited<ReturnType<typeof startServer>> | null = null
afterAll(async () => {
  await restarted?.stop()
  await server?.close()
})

it('reconnects after the server restarts and claims new work from the event stream', async () => {
  server = await startTestServer()
  const ws = await makeWorkspace(server.url)
  const agent = fakeAgent()
  const runner = startRunner(
    ['--url', server.url, '--company', ws.companyId, '--poll-seconds', '600', '--agent-command', agent.command, ...BACKOFF],
    { SHOPFLOOR_API_KEY: ws.apiKey, FAKE_AGENT_OUT: agent.out },
  )
  try {
    await waitFor(() => runner.logs().some((l) => l.msg === 'runner started'))
    const worker = await ws.client.agents.hire(ws.companyId, { name: 'Rex', adapter: 'process' })
    const first = await ws.client.tasks.create(ws.companyId, { title: 'Before', description: planDescription({ reply: 'one' }), assignee_agent_id: worker.id })
    await waitFor(async () => (await ws.client.runs.list(ws.companyId, { task_id: first.id }))[0]?.status === 'succeeded')

    // Same port, same database: a restart.
    await server.server.stop()
    await waitFor(() => runner.logs().some((l) => l.msg === 'event stream disconnected; reconnecting'))
    restarted = await startServer({ ...server.env, PORT: String(server.server.port) })

    // The poll is 10 minutes away: only the reconnected stream can bring this run to the runner.
    const second = await ws.client.tasks.create(ws.companyId, { title: 'After', description: planDescription({ reply: 'two' }), assignee_agent_id: worker.id })
    const done = await waitFor(async () => {
      const [run] = await ws.client.runs.list(ws.companyId, { task_id: second.id })
      return run?.status === 'succeeded' ? run : null
    }, 40_000)
    expect(done.summary).toBe('two')
    // Each failed attempt doubled the wait: the spec's 2, 4, 8 s, scaled.
    const waits = runner.logs().filter((l) => l.msg === 'event stream disconnected; reconnecting').map((l) => l.retry_in_ms)
    expect(waits.slice(0, 3)).toEqual([100, 200, 400])
  } finally {
    await runner.stop('SIGKILL')
  }
}, 180_000) // two server starts

it('tries the final report again while the server restarts, so a finished run is not lost', async () => {
  const first = await startTestServer()
  let again: Awaited<ReturnType<typeof startServer>> | null = null
  const ws = await makeWorkspace(first.url)
  const agent = fakeAgent()
  const runner = startRunner(
    ['--url', first.url, '--company', ws.companyId, '--agent-command', agent.command, ...BACKOFF],
    { SHOPFLOOR_API_KEY: ws.apiKey, FAKE_AGENT_OUT: agent.out },
  )
  try {
    const worker = await ws.client.agents.hire(ws.companyId, { name: 'Finisher', adapter: 'process' })
    const task = await ws.client.tasks.create(ws.companyId, { title: 'Across a restart', description: planDescription({ sleep: 2, reply: 'done anyway' }), assignee_agent_id: worker.id })
    const [run] = await ws.client.runs.list(ws.companyId, { task_id: task.id })
    await waitFor(() => agent.started(run.id))
    // The server goes away while the agent works, and stays away past the client's own retries.
    await first.server.stop()
    await waitFor(() => runner.logs().some((l) => l.msg === 'final report failed; trying again' && l.run_id === run.id), 60_000)
    again = await startServer({ ...first.env, PORT: String(first.server.port) })
    const done = await waitFor(async () => {
      const current = await ws.client.runs.get(ws.companyId, run.id)
      return current.status === 'succeeded' ? current : null
    }, 60_000)
    expect(done.summary).toBe('done anyway')
  } finally {
    await runner.stop('SIGKILL')
    await again?.stop()
    await first.close()
  }
}, 180_000)

it('a runner shutting down gives up a final report the server cannot take once its grace period is over', async () => {
  const gone = await startTestServer()
  const ws = await makeWorkspace(gone.url)
  const agent = fakeAgent()
  const runner = startRunner(
    ['--url', gone.url, '--company', ws.companyId, '--agent-command', agent.command, '--grace-seconds', '1', ...BACKOFF],
    { SHOPFLOOR_API_KEY: ws.apiKey, FAKE_AGENT_OUT: agent.out },
  )
  try {
    const worker = await ws.client.agents.hire(ws.companyId, { name: 'Leaving', adapter: 'process' })
    const task = await ws.client.tasks.create(ws.companyId, { title: 'Nowhere to report', description: planDescription({ sleep: 1, reply: 'unheard' }), assignee_agent_id: worker.id })
    const [run] = await ws.client.runs.list(ws.companyId, { task_id: task.id })
    await waitFor(() => agent.started(run.id))
    await gone.server.stop()
    await waitFor(() => runner.logs().some((l) => l.msg === 'final report failed; trying again' && l.run_id === run.id), 60_000)
    // The lease is 300 s: only giving up lets the runner exit within its grace period and a little.
    const sent = Date.now()
    runner.child.kill('SIGTERM')
    const exited = await Promise.race([runner.exited, new Promise<null>((r) => setTimeout(() => r(null), 30_000))])
    expect(exited).toMatchObject({ code: 0 })
    expect(Date.now() - sent).toBeLessThan(30_000)
  } finally {
    await runner.stop('SIGKILL')
    await gone.close()
  }
}, 180_000)
