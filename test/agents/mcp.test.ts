// `shopfloor mcp` driven by the SDK's own stdio client against a real server, with a real run
// credential from a claim.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunContext } from '../../src/client/index.ts'
import { makeWorkspace, sharedTestServer, type TestServer, type Workspace } from '../runner/harness.ts'
import { BIN, ROOT } from '../server-process.ts'

let server: TestServer
let ws: Workspace
beforeAll(async () => {
  server = await sharedTestServer()
  ws = await makeWorkspace(server.url)
})
afterAll(async () => server?.close())

async function connect(env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'shopfloor-test', version: '1.0.0' })
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd: ROOT, env, stderr: 'pipe' }))
  return client
}

function text(result: any): string {
  return result.content.map((c: { text: string }) => c.text).join('')
}
function json(result: any): any {
  expect(result.isError ?? false, text(result)).toBe(false)
  return JSON.parse(text(result))
}

describe('shopfloor mcp', () => {
  let claimed: RunContext
  let mcp: Client
  let ids: { ceo: string; manager: string; report: string; peer: string; peerTask: string }

  beforeAll(async () => {
    const { client, companyId } = ws
    const ceo = await client.agents.hire(companyId, { name: 'Ceo', adapter: 'process' })
    const manager = await client.agents.hire(companyId, { name: 'Manager', adapter: 'process', reports_to_id: ceo.id })
    const report = await client.agents.hire(companyId, { name: 'Report', adapter: 'process', reports_to_id: manager.id })
    const peer = await client.agents.hire(companyId, { name: 'Peer', adapter: 'process', reports_to_id: ceo.id })
    await client.tasks.create(companyId, { title: 'Launch the site', assignee_agent_id: manager.id })
    const peerTask = await client.tasks.create(companyId, { title: 'Peer work', status: 'backlog', assignee_agent_id: peer.id })
    claimed = (await client.runs.claim(companyId, { runner_id: 'mcp-test', agent_ids: [manager.id] }))!
    ids = { ceo: ceo.id, manager: manager.id, report: report.id, peer: peer.id, peerTask: peerTask.id }
    mcp = await connect({ SHOPFLOOR_API_URL: server.url, SHOPFLOOR_API_KEY: claimed.run_token! })
  })
  afterAll(async () => mcp?.close())

  it('lists its tools', async () => {
    const { tools } = await mcp.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(
      ['add_comment', 'create_task', 'get_context', 'get_task', 'list_agents', 'list_tasks', 'propose_hire', 'update_task'].sort(),
    )
  })

  it('get_context answers the run, the agent, its manager, reports and task', async () => {
    const context = json(await mcp.callTool({ name: 'get_context', arguments: {} }))
    expect(context.run.id).toBe(claimed.run.id)
    expect(context.agent.id).toBe(ids.manager)
    expect(context.manager.id).toBe(ids.ceo)
    expect(context.reports.map((a: any) => a.id)).toEqual([ids.report])
    expect(context.task).toMatchObject({ id: claimed.task!.id, title: 'Launch the site', comments: [] })
    expect(context.company.id).toBe(ws.companyId)
  })

  it('delegates: create_task defaults to a subtask of the run’s task, attributed to the agent', async () => {
    const task = json(await mcp.callTool({ name: 'create_task', arguments: { title: 'Write the copy', assignee_agent_id: ids.report } }))
    expect(task).toMatchObject({ parent_id: claimed.task!.id, assignee_agent_id: ids.report, created_by_agent_id: ids.manager, created_by_user_id: null })
    const listed = json(await mcp.callTool({ name: 'list_tasks', arguments: { parent_id: claimed.task!.id } }))
    expect(listed.map((t: any) => t.id)).toEqual([task.id])
    const updated = json(await mcp.callTool({ name: 'update_task', arguments: { task: task.key, priority: 'high' } }))
    expect(updated.priority).toBe('high')
  })

  it('add_comment defaults to the run’s task; get_task shows it', async () => {
    const comment = json(await mcp.callTool({ name: 'add_comment', arguments: { body: 'Which colour?', kind: 'question' } }))
    expect(comment).toMatchObject({ kind: 'question', author_agent_id: ids.manager, run_id: claimed.run.id, task_id: claimed.task!.id })
    const task = json(await mcp.callTool({ name: 'get_task', arguments: { task: claimed.task!.key } }))
    expect(task.comments.map((c: any) => c.body)).toEqual(['Which colour?'])
  })

  it('list_agents answers the org chart and propose_hire opens an approval', async () => {
    const org = json(await mcp.callTool({ name: 'list_agents', arguments: {} }))
    expect(org[0].agent.id).toBe(ids.ceo)
    const hired = json(await mcp.callTool({ name: 'propose_hire', arguments: { name: 'Designer', role: 'designer' } }))
    expect(hired).toMatchObject({ status: 'pending_approval', reports_to_id: ids.manager })
    const approvals = await ws.client.approvals.list(ws.companyId, { status: 'pending' })
    expect(approvals.find((a) => a.agent_id === hired.id)).toMatchObject({ type: 'hire_agent', requested_by_agent_id: ids.manager })
  })

  it('an API refusal is a tool error with the API’s code and message', async () => {
    const up = await mcp.callTool({ name: 'create_task', arguments: { title: 'For my boss', assignee_agent_id: ids.ceo } })
    expect(up.isError).toBe(true)
    expect(text(up)).toMatch(/^FORBIDDEN: An agent's run credential lacks the right to assign tasks/)
    const other = await mcp.callTool({ name: 'update_task', arguments: { task: ids.peerTask, status: 'done' } })
    expect(other.isError).toBe(true)
    expect(text(other)).toMatch(/^FORBIDDEN: .*update tasks it is neither assigned to nor created/)
    const missing = await mcp.callTool({ name: 'get_task', arguments: { task: 'RUN-999' } })
    expect(missing.isError).toBe(true)
    expect(text(missing)).toBe('NOT_FOUND: Task not found')
    expect((await ws.client.tasks.get(ws.companyId, ids.peerTask)).status).toBe('backlog')
  })

  it('once the run has ended every tool answers INVALID_TOKEN', async () => {
    await ws.client.runs.report(ws.companyId, claimed.run.id, { runner_id: 'mcp-test', status: 'succeeded' })
    const after = await mcp.callTool({ name: 'list_tasks', arguments: {} })
    expect(after.isError).toBe(true)
    expect(text(after)).toMatch(/^INVALID_TOKEN: /)
  })
})

describe('shopfloor mcp outside a run', () => {
  it('with a person’s key and SHOPFLOOR_COMPANY_ID the tools act with the person’s rights; get_context has no run', async () => {
    const mcp = await connect({ SHOPFLOOR_API_URL: server.url, SHOPFLOOR_API_KEY: ws.apiKey, SHOPFLOOR_COMPANY_ID: ws.companyId })
    try {
      const created = json(await mcp.callTool({ name: 'create_task', arguments: { title: 'By hand' } }))
      expect(created).toMatchObject({ parent_id: null, created_by_agent_id: null })
      const context = await mcp.callTool({ name: 'get_context', arguments: {} })
      expect(context.isError).toBe(true)
      expect(text(context)).toMatch(/not a run credential/)
      const comment = await mcp.callTool({ name: 'add_comment', arguments: { body: 'where?' } })
      expect(comment.isError).toBe(true)
      expect(text(comment)).toBe('This run has no task: name the task')
    } finally {
      await mcp.close()
    }
  })

  it('loads none of the HTTP server, so that it starts quickly for every run', async () => {
    const { spawnSync } = await import('node:child_process')
    // A module resolve hook that names every module of fastify or its plugins the command loads.
    const hook = `import { writeSync } from 'node:fs'
export async function resolve(specifier, context, next) {
  const found = await next(specifier, context)
  if (['/node_modules/fastify/', '/node_modules/@fastify/'].some((dir) => found.url.includes(dir))) writeSync(2, 'LOADED ' + found.url + '\\n')
  return found
}`
    const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)})`
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SHOPFLOOR_')))
    const r = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(register)}`, BIN, 'mcp'], { cwd: ROOT, env, encoding: 'utf8', input: '' })
    expect(r.stderr).toContain('set SHOPFLOOR_API_URL and SHOPFLOOR_API_KEY') // it ran its own code
    expect(r.stderr.split('\n').filter((line) => line.startsWith('LOADED'))).toEqual([])
  })

  it('without SHOPFLOOR_API_URL and SHOPFLOOR_API_KEY it says so and exits 2', async () => {
    const { spawnSync } = await import('node:child_process')
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SHOPFLOOR_')))
    const r = spawnSync(process.execPath, [BIN, 'mcp'], { cwd: ROOT, env, encoding: 'utf8', input: '' })
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('set SHOPFLOOR_API_URL and SHOPFLOOR_API_KEY')
    expect(r.stdout).toBe('')
  })
})
