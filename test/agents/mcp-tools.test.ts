// What an MCP client (an agent CLI, the MCP inspector) reads of `shopfloor mcp`'s tools before
// calling any: a description for the tool and for every argument, and annotations saying which
// tools only read (readOnlyHint), so a client can run those without asking its person.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { makeWorkspace, sharedTestServer } from '../runner/harness.ts'
import { BIN, ROOT } from '../server-process.ts'

let mcp: Client
let tools: Awaited<ReturnType<Client['listTools']>>['tools']
beforeAll(async () => {
  const server = await sharedTestServer()
  const ws = await makeWorkspace(server.url)
  mcp = new Client({ name: 'shopfloor-test', version: '1.0.0' })
  await mcp.connect(new StdioClientTransport({
    command: process.execPath, args: [BIN, 'mcp'], cwd: ROOT, stderr: 'pipe',
    env: { PATH: process.env.PATH ?? '', SHOPFLOOR_API_URL: server.url, SHOPFLOOR_API_KEY: ws.apiKey },
  }))
  tools = (await mcp.listTools()).tools
})
afterAll(async () => mcp?.close())

it('describes every tool and every argument', () => {
  expect(tools.length).toBeGreaterThanOrEqual(8)
  const undescribed: string[] = []
  for (const tool of tools) {
    if (!tool.description) undescribed.push(tool.name)
    for (const [name, schema] of Object.entries<any>(tool.inputSchema.properties ?? {})) {
      if (!schema.description) undescribed.push(`${tool.name}.${name}`)
    }
  }
  expect(undescribed).toEqual([])
})

it('says which tools only read, and that none reaches beyond the company', () => {
  const readOnly = tools.filter((t) => t.annotations?.readOnlyHint === true).map((t) => t.name).sort()
  expect(readOnly).toEqual(expect.arrayContaining(['get_changes', 'get_context', 'get_task', 'list_agents', 'list_tasks', 'read_doc', 'search_docs']))
  for (const tool of tools) {
    expect(typeof tool.annotations?.readOnlyHint, tool.name).toBe('boolean')
    expect(tool.annotations?.openWorldHint, tool.name).toBe(false)
    // Reads are named get_, list_, search_ or read_; everything else writes.
    expect(tool.annotations!.readOnlyHint, tool.name).toBe(/^(get|list|search|read)_/.test(tool.name))
  }
})
