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
/** The text of a successful call. */
function ok(result: any): string {
  expect(result.isError ?? false, text(result)).toBe(false)
  return text(result)
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
      ['add_comment', 'create_task', 'get_changes', 'get_context', 'get_task', 'list_agents', 'list_tasks', 'propose_hire', 'review_task', 'update_task', 'search_docs', 'read_doc', 'write_doc', 'remember'].sort(),
    )
  })

  it('lists its tools without what the model does not use, and still checks every argument', async () => {
    const { tools } = await mcp.listTools()
    // Every model request carries the list: no `$schema` line per tool, no UUID regular expression beside `format: uuid`.
    expect(JSON.stringify(tools)).not.toContain('$schema')
    const nodes: any[] = []
    const walk = (node: unknown) => {
      if (!node || typeof node !== 'object') return
      nodes.push(node)
      Object.values(node).forEach(walk)
    }
    tools.forEach((t) => walk(t.inputSchema))
    expect(nodes.filter((n) => n.format === 'uuid').length).toBe(8)
    expect(nodes.filter((n) => n.format !== undefined && n.pattern !== undefined)).toEqual([])
    // A pattern that says something the model needs stays: a tag is one word.
    expect(nodes.filter((n) => n.pattern !== undefined).map((n) => n.pattern)).toEqual(['^[^\\s,]+$'])
    const listTasks = tools.find((t) => t.name === 'list_tasks')!
    expect(listTasks.inputSchema.properties!.project_id).toEqual({ description: 'only tasks of this project (id)', type: 'string', format: 'uuid' })
    expect(listTasks.inputSchema.additionalProperties).toBe(false)
    // The tool itself still refuses what is not an id.
    const refused = await mcp.callTool({ name: 'list_tasks', arguments: { project_id: 'not-an-id' } })
    expect(refused.isError).toBe(true)
    expect(text(refused)).toMatch(/project_id/)
  })

  it('get_context answers in words: who the agent is, its manager, reports and task', async () => {
    // what the runner writes once the run has started is not why the agent was woken
    await ws.client.runs.report(ws.companyId, claimed.run.id, { runner_id: 'mcp-test', transcript: [{ role: 'system', text: 'Runner mcp-test started the run' }] })
    const context = text(await mcp.callTool({ name: 'get_context', arguments: {} }))
    expect(context).toMatch(new RegExp(`^Run ${claimed.run.id} \\(assignment\\)$`, 'm'))
    expect(context).toContain(`You are Manager (engineer), agent id ${ids.manager}, reporting to Ceo.`)
    expect(context).toContain('Your reports: Report.')
    expect(context).toContain(`Run ${claimed.run.id} (assignment)`)
    expect(context).toContain(`Your task: ${claimed.task!.key} Launch the site (in_progress, medium priority, assigned to Manager)`)
  })

  it('delegates by the agent’s name: create_task defaults to a subtask of the run’s task, attributed to the agent', async () => {
    const created = ok(await mcp.callTool({ name: 'create_task', arguments: { title: 'Write the copy', assignee_agent_id: 'report' } }))
    const key = created.match(/^Created (\S+) Write the copy/)?.[1]
    expect(created, created).toContain(`(todo, medium priority, assigned to Report, subtask of ${claimed.task!.key})`)
    const task = await ws.client.tasks.get(ws.companyId, key!)
    expect(task).toMatchObject({ parent_id: claimed.task!.id, assignee_agent_id: ids.report, created_by_agent_id: ids.manager, created_by_user_id: null })
    const listed = ok(await mcp.callTool({ name: 'list_tasks', arguments: { parent_id: claimed.task!.key, assignee_agent_id: 'Report' } }))
    expect(listed).toBe(`${key} Write the copy (todo, medium priority, assigned to Report, subtask of ${claimed.task!.key})`)
    const updated = ok(await mcp.callTool({ name: 'update_task', arguments: { task: key, priority: 'high' } }))
    expect(updated).toMatch(new RegExp(`^Updated ${key} Write the copy \\(todo, high priority, assigned to Report`))
  })

  it('add_comment defaults to the run’s task; get_task shows the task with its comments and subtasks', async () => {
    expect(ok(await mcp.callTool({ name: 'add_comment', arguments: { body: 'Which colour?', kind: 'question' } })))
      .toMatch(new RegExp(`^Added a question to ${claimed.task!.key}`))
    const task = ok(await mcp.callTool({ name: 'get_task', arguments: { task: claimed.task!.key } }))
    expect(task).toContain(`${claimed.task!.key} Launch the site (in_progress, medium priority, assigned to Manager)`)
    expect(task).toMatch(/Subtasks:\n- \S+ Write the copy \(todo, high priority, assigned to Report/)
    expect(task).toMatch(/Comments:\n- Manager \(question, [^)]+\): Which colour\?/)
    // get_context was asked before the comment: it answers the task as it is now
    expect(ok(await mcp.callTool({ name: 'get_context', arguments: {} }))).toMatch(/Comments:\n- Manager \(question, [^)]+\): Which colour\?/)
  })

  it('list_agents answers the org chart as a tree and propose_hire opens an approval', async () => {
    const org = ok(await mcp.callTool({ name: 'list_agents', arguments: {} }))
    expect(org).toMatch(/^- Ceo \(engineer, idle\), id \S+\n {2}- Manager \(engineer, running\), id \S+ \(you\)\n {4}- Report /)
    const hired = ok(await mcp.callTool({ name: 'propose_hire', arguments: { name: 'Designer', role: 'designer' } }))
    expect(hired).toMatch(/^Proposed hiring Designer \(designer\), reporting to Manager: it waits for a person's approval/)
    const approvals = await ws.client.approvals.list(ws.companyId, { status: 'pending' })
    const agents = await ws.client.agents.list(ws.companyId)
    const designer = agents.find((a) => a.name === 'Designer')!
    expect(designer).toMatchObject({ status: 'pending_approval', reports_to_id: ids.manager })
    expect(approvals.find((a) => a.agent_id === designer.id)).toMatchObject({ type: 'hire_agent', requested_by_agent_id: ids.manager })
    expect(ok(await mcp.callTool({ name: 'propose_hire', arguments: { name: 'Intern', reports_to_id: 'Report' } }))).toMatch(/^Proposed hiring Intern \(engineer\), reporting to Report:/)
  })

  it('bad input is a tool error naming the problem, and the server keeps answering', async () => {
    await ws.client.agents.hire(ws.companyId, { name: 'Twin', adapter: 'process', reports_to_id: ids.manager })
    await ws.client.agents.hire(ws.companyId, { name: 'twin', adapter: 'process', reports_to_id: ids.manager })
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['create_task', { title: 'x', assignee_agent_id: 'Nobody' }, /^No agent is named "Nobody"/],
      ['create_task', { title: 'x', assignee_agent_id: 'Twin' }, /^2 agents are named "Twin": give the id of the one you mean/],
      ['create_task', { title: 'x', assignee: 'Report' }, /Unrecognized key.*"assignee"/],
      ['create_task', { title: '' }, /title/],
      ['create_task', { title: 'x'.repeat(301) }, /title/],
      ['create_task', { title: 'x', parent_id: 'NOPE-99' }, /^NOT_FOUND: Task not found/],
      ['update_task', { status: 'finished' }, /status/],
      ['update_task', { task: 'NOPE-99', status: 'done' }, /^NOT_FOUND: Task not found/],
      ['add_comment', { body: '' }, /body/],
      ['add_comment', { body: 'x', kind: 'system' }, /kind/],
      ['list_tasks', { assignee_agent_id: 'Nobody' }, /^No agent is named "Nobody"/],
    ]
    for (const [name, args, message] of cases) {
      const r = await mcp.callTool({ name, arguments: args })
      expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true)
      expect(text(r), `${name} ${JSON.stringify(args)}`).toMatch(message)
    }
    const long = ok(await mcp.callTool({ name: 'create_task', arguments: { title: 'y'.repeat(300), status: 'backlog' } }))
    expect(long).toMatch(/^Created \S+ y{300} \(backlog/)
    expect((await ws.client.tasks.list(ws.companyId, { q: 'x' })).filter((t) => t.title === 'x')).toEqual([])
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

  it('get_changes reads the branch of the run’s task: files, commits, checks and the diff; review_task is the reviewer’s only', async () => {
    const none = ok(await mcp.callTool({ name: 'get_changes', arguments: {} }))
    expect(none).toBe(`${claimed.task!.key} has no recorded changes yet (its project has no repository, or no run has finished on it).`)
    const changes = {
      branch: `shopfloor/${claimed.task!.key}`, base_commit: 'a'.repeat(40), head_commit: 'b'.repeat(40), pushed: true,
      commits: [{ sha: 'b'.repeat(40), message: 'Add the launch page\n\nWith a title.' }],
      files: [{ path: 'launch.html', status: 'added' as const, additions: 1, deletions: 0 }], additions: 1, deletions: 0,
    }
    const checks = [{ name: 'tests', status: 'failed' as const, exit_code: 1, duration_ms: 42, output_tail: 'expected a title' }]
    await ws.client.runs.report(ws.companyId, claimed.run.id, { runner_id: 'mcp-test', changes, checks })
    await ws.client.runs.uploadPatch(ws.companyId, claimed.run.id, 'mcp-test', 'diff --git a/launch.html b/launch.html\n+<h1>Launch</h1>\n')
    const said = ok(await mcp.callTool({ name: 'get_changes', arguments: { task: claimed.task!.key } }))
    expect(said).toContain(`${claimed.task!.key}: branch shopfloor/${claimed.task!.key} (pushed), aaaaaaaaaaaa..bbbbbbbbbbbb`)
    expect(said).toContain('- launch.html (added, +1 -0)')
    expect(said).toContain('- bbbbbbbbbbbb Add the launch page')
    expect(said).toContain('- tests: failed (exit code 1), 42 ms')
    expect(said).toContain('    expected a title')
    expect(said).toContain('Diff:\ndiff --git a/launch.html b/launch.html\n+<h1>Launch</h1>')
    expect(ok(await mcp.callTool({ name: 'get_changes', arguments: { diff: false } }))).not.toContain('Diff:')
    const review = await mcp.callTool({ name: 'review_task', arguments: { task: claimed.task!.key, decision: 'approve' } })
    expect(review.isError).toBe(true)
    expect(text(review)).toBe("FORBIDDEN: Only the project's reviewer agent reviews through a run")
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
      const created = ok(await mcp.callTool({ name: 'create_task', arguments: { title: 'By hand' } }))
      expect(created).toMatch(/^Created \S+ By hand \(todo, medium priority, assigned to nobody\)/)
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
