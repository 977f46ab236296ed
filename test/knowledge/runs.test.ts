// What a run is told and given, through the real server, the real `shopfloor mcp` and a real
// runner process: a note an agent remembers reaches its next run's prompt; pinned documents are
// named with a summary, never pasted; skills are installed where Claude Code reads them (a
// stand-in CLI records its home) or listed with a path for other CLIs, for that run only.
import fs from 'node:fs'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Run } from '../../src/client/index.ts'
import { BIN, ROOT, tempDir } from '../server-process.ts'
import {
  type FakeAgent, fakeAgent, makeWorkspace, planDescription, type RunnerProcess, type StandIns, standIns, startRunner,
  sharedTestServer, type TestServer, waitFor, type Workspace,
} from '../runner/harness.ts'

let server: TestServer
let ws: Workspace
let agent: FakeAgent
let clis: StandIns
let runner: RunnerProcess | null = null
let homes: string

beforeAll(async () => {
  server = await sharedTestServer()
  ws = await makeWorkspace(server.url)
  agent = fakeAgent()
  clis = standIns(['claude'])
  homes = tempDir('shopfloor-knowledge-homes-')
})
afterAll(async () => {
  await runner?.stop()
  await server?.close()
})

function startTheRunner() {
  runner = startRunner(
    ['--url', server.url, '--company', ws.companyId, '--runner-id', 'knowledge-runner', '--heartbeat-seconds', '1', '--poll-seconds', '5',
      '--flush-seconds', '0.2', '--agent-command', agent.command, '--agent-homes', homes],
    { SHOPFLOOR_API_KEY: ws.apiKey, PATH: `${clis.bin}:${process.env.PATH}`, ANTHROPIC_API_KEY: 'sk-ant-test' },
  )
}

async function finished(taskId: string): Promise<Run> {
  const run = await waitFor(async () => {
    const [latest] = await ws.client.runs.list(ws.companyId, { task_id: taskId })
    return latest && ['succeeded', 'failed'].includes(latest.status) ? latest : null
  }, 30_000)
  return ws.client.runs.get(ws.companyId, run.id)
}

const text = (result: any): string => result.content.map((c: { text: string }) => c.text).join('')

const reviewSkill = {
  name: 'code-review', description: 'Review a change: correctness first, then tests, then names.',
  body: '# Code review\n1. Read the whole diff.', files: [{ path: 'reference/checklist.md', content: '- Does it have a test?' }],
}

describe('the knowledge tools of shopfloor mcp', () => {
  it('describe every property, and the read-only ones say so', async () => {
    const mcp = new Client({ name: 'knowledge-test', version: '1.0.0' })
    await mcp.connect(new StdioClientTransport({
      command: process.execPath, args: [BIN, 'mcp'], cwd: ROOT, stderr: 'pipe',
      env: { SHOPFLOOR_API_URL: server.url, SHOPFLOOR_API_KEY: ws.apiKey, SHOPFLOOR_COMPANY_ID: ws.companyId },
    }))
    try {
      const tools = (await mcp.listTools()).tools.filter((t) => ['search_docs', 'read_doc', 'write_doc', 'remember'].includes(t.name))
      expect(tools).toHaveLength(4)
      for (const tool of tools) {
        expect(tool.description, tool.name).toBeTruthy()
        for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {})) {
          expect((property as { description?: string }).description, `${tool.name}.${name}`).toBeTruthy()
        }
        expect(tool.annotations?.readOnlyHint ?? false, tool.name).toBe(['search_docs', 'read_doc'].includes(tool.name))
      }
      // With a person's key there is no run, so no memory to write.
      const remember = await mcp.callTool({ name: 'remember', arguments: { note: 'x' } })
      expect(remember.isError).toBe(true)
      expect(text(remember)).toMatch(/only an agent’s run has a memory/)
    } finally {
      await mcp.close()
    }
  })
})

describe('what a run is told and given', () => {
  it('a note the agent remembers through shopfloor mcp reaches its next run, with the pinned documents and its skills', async () => {
    const { client, companyId } = ws
    const skill = await client.skills.create(companyId, reviewSkill)
    const worker = await client.agents.hire(companyId, { name: 'Rem Worker', adapter: 'process', skills: [skill.id] })
    await client.documents.create(companyId, {
      title: 'Handbook', pinned: true,
      body: '# Handbook\nShip small changes behind a flag.\n\nSECRET-PARAGRAPH that only read_doc shows.',
    })
    await client.documents.create(companyId, { title: 'Unpinned notes', body: 'Never named in a prompt.' })

    // The first run: this test is its runner; the agent remembers through the MCP server with the run's credential.
    await client.tasks.create(companyId, { title: 'Learn the build', assignee_agent_id: worker.id })
    const first = (await client.runs.claim(companyId, { runner_id: 'by-hand', agent_ids: [worker.id] }))!
    const mcp = new Client({ name: 'knowledge-test', version: '1.0.0' })
    await mcp.connect(new StdioClientTransport({
      command: process.execPath, args: [BIN, 'mcp'], cwd: ROOT, stderr: 'pipe',
      env: { SHOPFLOOR_API_URL: server.url, SHOPFLOOR_API_KEY: first.run_token! },
    }))
    try {
      expect(text(await mcp.callTool({ name: 'remember', arguments: { note: 'The build needs Node 20: use nvm.' } }))).toMatch(/^Remembered/)
      expect(text(await mcp.callTool({ name: 'remember', arguments: { note: 'Run lint before tests.' } }))).toMatch(/^Remembered/)
      const found = text(await mcp.callTool({ name: 'search_docs', arguments: { query: 'flag' } }))
      expect(found).toMatch(/^- Handbook \(id [0-9a-f-]{36}; version 1, updated .*\): Ship small changes behind a flag\.$/)
      expect(text(await mcp.callTool({ name: 'read_doc', arguments: { document: 'handbook' } }))).toContain('SECRET-PARAGRAPH')
      const written = text(await mcp.callTool({ name: 'write_doc', arguments: { title: 'Build notes', body: 'Node 20.', tags: ['build'] } }))
      expect(written).toMatch(/^Created Build notes \(id .*, version 1\)\.$/)
      const refused = await mcp.callTool({ name: 'write_doc', arguments: { document: 'Handbook', body: 'Ship whenever.' } })
      expect(refused.isError).toBe(true)
      expect(text(refused)).toMatch(/^FORBIDDEN: An agent's run credential lacks the right to write documents it neither created/)
    } finally {
      await mcp.close()
    }
    await client.runs.report(companyId, first.run.id, { runner_id: 'by-hand', status: 'succeeded', summary: 'Learnt it.' })
    const [memory] = await client.documents.list(companyId, { agent_id: worker.id })
    expect(memory).toMatchObject({ title: 'Memory of Rem Worker', body: '- The build needs Node 20: use nvm.\n- Run lint before tests.\n', version: 2 })

    // The next run, by a real runner: its prompt carries the memory, names the pinned document and lists the skill.
    startTheRunner()
    const task = await client.tasks.create(companyId, { title: 'Fix the build', description: planDescription({ reply: 'Done.' }), assignee_agent_id: worker.id })
    const run = await finished(task.id)
    expect(run.status).toBe('succeeded')
    const seen = agent.started(run.id)
    expect(seen.prompt).toContain('# Your memory\nNotes you kept for yourself with remember:\n- The build needs Node 20: use nvm.\n- Run lint before tests.')
    expect(seen.prompt).toContain('# Company documents\nPinned for this work (read them through the API when they matter):\n- Handbook: Ship small changes behind a flag.')
    expect(seen.prompt).not.toContain('SECRET-PARAGRAPH')
    expect(seen.prompt).not.toContain('Unpinned notes')
    const skillPath = path.join(homes, worker.id, '.shopfloor', 'skills', 'code-review', 'SKILL.md')
    expect(seen.prompt).toContain(`# Your skills\nInstructions for kinds of work; before doing that kind of work, read the skill's file:\n- code-review: ${reviewSkill.description} (${skillPath})`)
    expect(seen.configDirEntries).toContain('.shopfloor')
    // For that run only: the kept home no longer holds it.
    expect(fs.existsSync(path.dirname(skillPath))).toBe(false)
  })

  it('installs skills where Claude Code reads them, in the agent’s home, for that run only', async () => {
    const { client, companyId } = ws
    if (!runner) startTheRunner()
    const skill = await client.skills.create(companyId, { ...reviewSkill, name: 'planning', description: 'Write a plan: "steps", risks\nand checks.' })
    const claude = await client.agents.hire(companyId, { name: 'Claude Worker', adapter: 'agent_cli_1', skills: [skill.id] })
    const task = await client.tasks.create(companyId, { title: 'Plan the work', description: planDescription({ reply: 'Planned.' } as any), assignee_agent_id: claude.id })
    const run = await finished(task.id)
    expect(run.status, run.error ?? '').toBe('succeeded')
    const seen = clis.seen(run.id)
    expect(seen.env.HOME).toBe(path.join(homes, claude.id))
    expect(seen.skills).toEqual({
      [path.join('planning', 'SKILL.md')]: '---\nname: planning\ndescription: "Write a plan: \\"steps\\", risks and checks."\n---\n\n# Code review\n1. Read the whole diff.\n',
      [path.join('planning', 'reference', 'checklist.md')]: '- Does it have a test?',
    })
    expect(seen.prompt).toContain('# Your skills\nLoaded by your CLI; use one when the work fits it: planning.')
    expect(seen.prompt).toContain('search_docs, read_doc')
    expect(fs.existsSync(path.join(homes, claude.id, '.claude', 'skills', 'planning'))).toBe(false)
  })
})
