// `shopfloor runner --company` and `--agent` take names (and a task prefix for the company),
// resolved through the API at start; the server then lists the runner with what it runs.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { makeWorkspace, type RunnerProcess, startRunner, sharedTestServer, type TestServer, waitFor } from './harness.ts'

let server: TestServer
const runners: RunnerProcess[] = []
beforeAll(async () => {
  server = await sharedTestServer()
})
afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.stop('SIGKILL')))
})
afterAll(async () => {
  await server?.close()
})

function runner(apiKey: string, args: string[]): RunnerProcess {
  const process = startRunner(['--url', server.url, '--poll-seconds', '5', ...args], { SHOPFLOOR_API_KEY: apiKey })
  runners.push(process)
  return process
}

describe('runner names', () => {
  it('works for a company given by task prefix and only for the agent given by name', async () => {
    const ws = await makeWorkspace(server.url)
    const ada = await ws.client.agents.hire(ws.companyId, { name: 'Ada Writer', adapter: 'simulated' })
    const bob = await ws.client.agents.hire(ws.companyId, { name: 'Bob', adapter: 'simulated' })
    const mine = await ws.client.tasks.create(ws.companyId, { title: 'For Ada', assignee_agent_id: ada.id })
    const other = await ws.client.tasks.create(ws.companyId, { title: 'For Bob', assignee_agent_id: bob.id })
    runner(ws.apiKey, ['--company', 'run', '--agent', 'ada writer', '--runner-id', 'named-box'])

    const run = await waitFor(async () => {
      const [latest] = await ws.client.runs.list(ws.companyId, { task_id: mine.id })
      return latest?.status === 'succeeded' ? latest : null
    })
    expect(run.runner_id).toBe('named-box')
    const [bobs] = await ws.client.runs.list(ws.companyId, { task_id: other.id })
    expect(bobs.status).toBe('queued')
    const [seen] = await ws.client.runners.list(ws.companyId)
    expect(seen).toMatchObject({ runner_id: 'named-box', status: 'online' })
  })

  it('stops at start with exit code 4 for an unknown or ambiguous name', async () => {
    const ws = await makeWorkspace(server.url)
    await ws.client.companies.create({ name: 'Twin', task_prefix: 'TWA' })
    await ws.client.companies.create({ name: 'Twin', task_prefix: 'TWB' })
    const twin = runner(ws.apiKey, ['--company', 'twin'])
    expect((await twin.exited).code).toBe(4)
    expect(twin.output()).toContain(`"twin" matches 2 companies (Twin `)
    const nobody = runner(ws.apiKey, ['--company', 'RUN', '--agent', 'Nobody'])
    expect((await nobody.exited).code).toBe(4)
    expect(nobody.output()).toContain('no agent called "Nobody"')
  })
})
