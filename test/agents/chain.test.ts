// A real runner (`shopfloor runner`) executing a stand-in agent CLI that acts on the company with
// what it was given: the run credential in SHOPFLOOR_API_KEY, used through `shopfloor mcp` and
// plain HTTP. A manager's run hands a subtask to each of its two reports, their runs finish
// them, and the manager is woken on the parent.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeWorkspace, type RunnerProcess, startRunner, sharedTestServer, type TestServer, waitFor, type Workspace } from '../runner/harness.ts'
import { BIN, ROOT, tempDir } from '../server-process.ts'

/** The adapter whose command line `--agent-command` sets. */
const STAND_IN_ADAPTER = 'process'

// The stand-in reads its prompt, acts according to its agent's name, records what it saw and
// got in STANDIN_OUT/<run id>.json, and prints a one-line reply.
const STAND_IN = `
import fs from 'node:fs'
import { pathToFileURL } from 'node:url'
const root = process.env.STANDIN_ROOT
const { Client } = await import(pathToFileURL(root + '/node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js').href)
const { StdioClientTransport } = await import(pathToFileURL(root + '/node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.js').href)
const url = process.env.SHOPFLOOR_API_URL
const key = process.env.SHOPFLOOR_API_KEY
const runId = process.env.SHOPFLOOR_RUN_ID
const company = process.env.SHOPFLOOR_COMPANY_ID
const record = { key, agent: process.env.SHOPFLOOR_AGENT_NAME, calls: {} }

async function http(method, path, body) {
  const r = await fetch(url + path, { method, headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body) })
  return { status: r.status, body: await r.json().catch(() => null) }
}

async function tools() {
  const client = new Client({ name: 'stand-in', version: '1.0.0' })
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [process.env.STANDIN_BIN, 'mcp'],
    env: { SHOPFLOOR_API_URL: url, SHOPFLOOR_API_KEY: key } }))
  const call = async (name, args = {}) => {
    const r = await client.callTool({ name, arguments: args })
    const text = r.content.map((c) => c.text).join('')
    return r.isError ? { error: text } : text
  }
  return { call, close: () => client.close() }
}

if (record.agent === 'Manager') {
  const mcp = await tools()
  // The tools answer in words: the agent reads its reports and its manager by name.
  const context = await mcp.call('get_context')
  const woken = context.match(/^Run \\S+ \\(assignment\\): (The subtasks of .*)$/m)
  if (woken) {
    record.woken = woken[1]
  } else {
    record.created = []
    for (const name of context.match(/^Your reports: (.*)\\.$/m)[1].split(', ')) {
      const created = await mcp.call('create_task', { title: 'Part for ' + name, assignee_agent_id: name })
      record.created.push(created.match(/^Created (\\S+) /)[1])
    }
    const manager = context.match(/reporting to (.*)\\.$/m)[1]
    record.calls.forUp = await mcp.call('create_task', { title: 'For my manager', assignee_agent_id: manager })
    record.calls.me = (await http('GET', '/api/me')).status
    record.calls.keys = (await http('POST', '/api/me/api-keys', { name: 'steal' })).status
    record.calls.otherCompany = await http('GET', '/api/companies/' + process.env.STANDIN_OTHER_COMPANY + '/tasks')
    record.calls.budget = await http('PATCH', '/api/companies/' + company, { monthly_budget_cents: 1 })
  }
  await mcp.close()
} else {
  record.calls.comment = await http('POST', '/api/companies/' + company + '/tasks/' + process.env.SHOPFLOOR_TASK_KEY + '/comments', { body: 'On it' })
}
fs.writeFileSync(process.env.STANDIN_OUT + '/' + runId + '.json.tmp', JSON.stringify(record))
fs.renameSync(process.env.STANDIN_OUT + '/' + runId + '.json.tmp', process.env.STANDIN_OUT + '/' + runId + '.json')
console.log('Done: ' + record.agent)
`

let server: TestServer
let ws: Workspace
let runner: RunnerProcess
let out: string
let otherCompany: string

beforeAll(async () => {
  server = await sharedTestServer()
  ws = await makeWorkspace(server.url)
  otherCompany = (await ws.client.companies.create({ name: 'Other Co' })).id
  const dir = tempDir('shopfloor-stand-in-')
  out = path.join(dir, 'out')
  fs.mkdirSync(out)
  fs.writeFileSync(path.join(dir, 'agent.mjs'), STAND_IN)
  runner = startRunner(
    ['--url', server.url, '--company', ws.companyId, '--runner-id', 'chain-runner', '--heartbeat-seconds', '1', '--poll-seconds', '5', '--concurrency', '3',
      '--flush-seconds', '0.2', '--success-status', 'done',
      // The stand-in's own settings reach it only when named: agents get an allow-listed environment.
      ...['STANDIN_OUT', 'STANDIN_ROOT', 'STANDIN_BIN', 'STANDIN_OTHER_COMPANY'].flatMap((name) => ['--pass-env', name]), '--agent-command', `"${process.execPath}" "${path.join(dir, 'agent.mjs')}"`],
    { SHOPFLOOR_API_KEY: ws.apiKey, STANDIN_OUT: out, STANDIN_ROOT: ROOT, STANDIN_BIN: BIN, STANDIN_OTHER_COMPANY: otherCompany },
  )
})

afterAll(async () => {
  await runner?.stop()
  await server?.close()
})

const recorded = (runId: string) => {
  const file = path.join(out, `${runId}.json`)
  return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : null
}

describe('a manager delegating to its reports through a real runner', () => {
  it('splits the task, the reports finish their parts, and the manager is woken on the parent', async () => {
    const { client, companyId } = ws
    const ceo = await client.agents.hire(companyId, { name: 'Ceo', adapter: STAND_IN_ADAPTER })
    await client.agents.pause(companyId, ceo.id) // above the manager; never runs here
    const manager = await client.agents.hire(companyId, { name: 'Manager', adapter: STAND_IN_ADAPTER, reports_to_id: ceo.id })
    const ann = await client.agents.hire(companyId, { name: 'Ann', adapter: STAND_IN_ADAPTER, reports_to_id: manager.id })
    const bob = await client.agents.hire(companyId, { name: 'Bob', adapter: STAND_IN_ADAPTER, reports_to_id: manager.id })
    const parent = await client.tasks.create(companyId, { title: 'Launch the site', assignee_agent_id: manager.id })

    // The manager's second run (runs come newest first): woken on the parent once both parts are done.
    const wake = await waitFor(async () => {
      const runs = await client.runs.list(companyId, { agent_id: manager.id, task_id: parent.id })
      const done = runs.length === 2 && runs[0].status === 'succeeded' ? runs[0] : null
      return done && recorded(done.id) ? done : null
    }, 90_000).catch(async (err) => {
      // What happened instead, for the failure message.
      const runs = await client.runs.list(companyId)
      const detail = runs.map((r) => `${r.agent_id} ${r.trigger} ${r.status} ${r.error ?? ''}`).join('\n')
      throw new Error(`${err.message}\nruns:\n${detail}\nfiles: ${fs.readdirSync(out).join(', ')}\nrunner:\n${runner.output().slice(-3000)}`)
    })
    expect(wake.trigger).toBe('assignment')
    const first = (await client.runs.list(companyId, { agent_id: manager.id, task_id: parent.id })).at(-1)!
    const plan = recorded(first.id)
    plan.created = await Promise.all(plan.created.map((key: string) => client.tasks.get(companyId, key)))

    // It acted with its run credential, not the runner's key.
    expect(plan.key).not.toBe(ws.apiKey)
    expect(plan.created.map((t: any) => [t.assignee_agent_id, t.parent_id, t.created_by_agent_id])).toEqual([
      [ann.id, parent.id, manager.id],
      [bob.id, parent.id, manager.id],
    ])
    expect(plan.calls.forUp.error).toMatch(/^FORBIDDEN: An agent's run credential lacks the right to assign tasks/)
    expect(plan.calls.me).toBe(403)
    expect(plan.calls.keys).toBe(403)
    expect(plan.calls.otherCompany).toEqual({ status: 404, body: { error: { code: 'NOT_FOUND', message: 'Company not found', details: {} } } })
    expect(plan.calls.budget.status).toBe(403)
    expect(plan.calls.budget.body.error.message).toMatch(/change the company/)
    expect((await client.companies.get(companyId)).monthly_budget_cents).toBe(0)

    // The reports' runs: each commented with its credential and finished its part.
    for (const sub of plan.created) {
      const task = await client.tasks.get(companyId, sub.id)
      expect(task.status).toBe('done')
      const [run] = await client.runs.list(companyId, { task_id: sub.id })
      expect(recorded(run.id).calls.comment.status).toBe(201)
      const comments = await client.comments.list(companyId, sub.id)
      expect(comments[0]).toMatchObject({ body: 'On it', author_agent_id: sub.assignee_agent_id, run_id: run.id })
    }

    // The wake says which subtasks finished, and the manager saw it.
    const woken = await client.runs.get(companyId, wake.id)
    const reason = woken.transcript![0]
    expect(reason.role).toBe('system')
    expect(reason.text).toBe(
      `The subtasks of ${parent.key} are finished: ${plan.created[0].key} (done); ${plan.created[1].key} (done)`,
    )
    // The titles, the agents' words, follow quoted in a user entry.
    expect(woken.transcript![1]).toMatchObject({ role: 'user', text: expect.stringContaining(`> ${plan.created[0].key} Part for Ann`) })
    expect(recorded(wake.id).woken).toBe(reason.text)

    // Every credential died with its run.
    for (const run of await client.runs.list(companyId)) {
      const key = recorded(run.id)?.key
      if (!key) continue
      const r = await fetch(`${server.url}/api/companies/${companyId}/tasks`, { headers: { authorization: `Bearer ${key}` } })
      expect(r.status).toBe(401)
    }
  }, 120_000)
})
