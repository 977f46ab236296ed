// One execution in-process, without the runner's event stream, against a listening API: the
// answers of the API alone (a heartbeat or report refused with RUN_LEASE_LOST / RUN_FINISHED)
// must stop the agent.
import { Writable } from 'node:stream'
import pino from 'pino'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { ShopfloorClient } from '../../src/client/index.ts'
import { expireStaleRuns, LEASE_EXPIRED_ERROR } from '../../src/domain/runs/expire.ts'
import { adapterFor, buildAdapters } from '../../src/runner/adapters/index.ts'
import { Execution } from '../../src/runner/execution.ts'
import { parseRunnerOptions, type RunnerOptions } from '../../src/runner/options.ts'
import { type TestApp, testApp } from '../helpers.ts'
import { tempDir } from '../server-process.ts'
import { alive, fakeAgent, makeWorkspace, planDescription, waitFor } from './harness.ts'

let t: TestApp
let url: string
beforeAll(async () => {
  t = await testApp()
  url = await t.app.listen({ host: '127.0.0.1', port: 0 })
})
afterAll(async () => {
  await t?.close()
})

it('a heartbeat refused because the lease expired stops the agent; nothing is reported over the expiry', async () => {
  const ws = await makeWorkspace(url)
  const agent = fakeAgent()
  process.env.FAKE_AGENT_OUT = agent.out
  const options = parseRunnerOptions(
    ['--url', url, '--company', ws.companyId, '--heartbeat-seconds', '0.3', '--flush-seconds', '60', '--agent-command', agent.command],
    { SHOPFLOOR_API_KEY: ws.apiKey, XDG_CONFIG_HOME: tempDir('shopfloor-runner-config-') },
  ) as RunnerOptions
  const client = new ShopfloorClient({ baseUrl: url, credentials: { apiKey: ws.apiKey }, retry: false })
  const worker = await ws.client.agents.hire(ws.companyId, { name: 'Lease Tester', adapter: 'process' })
  await ws.client.tasks.create(ws.companyId, { title: 'Slow', description: planDescription({ sleep: 30 }), assignee_agent_id: worker.id })
  const context = (await client.runs.claim(ws.companyId, { runner_id: options.runnerId }))!
  const lines: any[] = []
  const log = pino({ level: 'info' }, new Writable({ write: (chunk, _e, done) => (lines.push(JSON.parse(String(chunk))), done()) }))

  const execution = new Execution(client, options, adapterFor(options, await buildAdapters(options), 'process'), context, log)
  const seen = await waitFor(() => agent.started(context.run.id))
  // The runner "stopped reporting" as far as the server can tell: the sweep fails the run.
  // (A heartbeat landing between the back-dating and the sweep renews the lease: try again.)
  await waitFor(async () => {
    await t.ctx.db.query(`UPDATE runs SET heartbeat_at = now() - interval '1 hour' WHERE id = $1`, [context.run.id])
    return (await expireStaleRuns(t.ctx, ws.companyId)).includes(context.run.id)
  })

  await waitFor(() => !alive(seen.pid), 10_000) // long before its 30 seconds
  expect(agent.finished(context.run.id)).toBe(false)
  await execution.done
  expect(lines.some((l) => l.msg === 'run is no longer ours; stopping the agent')).toBe(true)
  expect(await ws.client.runs.get(ws.companyId, context.run.id)).toMatchObject({ status: 'failed', error: LEASE_EXPIRED_ERROR })
})
