// Stand-in for Claude Code: `claude -p --output-format stream-json --verbose`.
import fs from 'node:fs'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { begin, FAILURES } from './common.mjs'

/**
 * Calls a tool of the `shopfloor` MCP server the way Claude Code starts it: the command, args
 * and env of --mcp-config, each ${VAR} expanded from its own environment.
 */
async function callShopfloor(tool, args) {
  const file = process.argv[process.argv.indexOf('--mcp-config') + 1]
  const server = JSON.parse(fs.readFileSync(file, 'utf8')).mcpServers.shopfloor
  const env = Object.fromEntries(Object.entries(server.env).map(([k, v]) => [k, v.replace(/\$\{(\w+)\}/g, (_, n) => process.env[n] ?? '')]))
  const client = new Client({ name: 'claude-stand-in', version: '1.0.0' })
  await client.connect(new StdioClientTransport({ command: server.command, args: server.args, env: { PATH: process.env.PATH, ...env }, stderr: 'ignore' }))
  try {
    const result = await client.callTool({ name: tool, arguments: args })
    return result.content.map((c) => c.text).join('\n')
  } finally {
    await client.close()
  }
}

const mcpConfig = (argv) => (argv.includes('--mcp-config') ? [argv[argv.indexOf('--mcp-config') + 1]] : [])
const s = begin('claude', '2.1.197 (Claude Code)', mcpConfig)
const { plan, usage: u, session, model, emit } = s
emit({ type: 'system', subtype: 'init', cwd: process.cwd(), session_id: session, tools: ['Bash', 'Read', 'Edit'], mcp_servers: [{ name: 'shopfloor', status: 'connected' }], model, permissionMode: 'bypassPermissions', apiKeySource: 'ANTHROPIC_API_KEY' })
const half = (n) => Math.floor(n / 2)
const message = (id, content, usage) => emit({
  type: 'assistant',
  message: { id, type: 'message', role: 'assistant', model, content, stop_reason: null, usage },
  parent_tool_use_id: null,
  session_id: session,
})
const firstUsage = { input_tokens: half(u.input), cache_creation_input_tokens: u.cacheWrite, cache_read_input_tokens: half(u.cacheRead), output_tokens: half(u.output) }
const restUsage = { input_tokens: u.input - half(u.input), cache_creation_input_tokens: 0, cache_read_input_tokens: u.cacheRead - half(u.cacheRead), output_tokens: u.output - half(u.output) }
message('msg_01', (plan.text ?? ['Looking at the task.']).map((text) => ({ type: 'text', text })), firstUsage)
await s.pause()
;(plan.tools ?? []).forEach((tool, i) => {
  message('msg_01', [{ type: 'tool_use', id: `toolu_0${i}`, name: tool.name, input: tool.input }], firstUsage)
  emit({
    type: 'user',
    message: { role: 'user', content: [{ tool_use_id: `toolu_0${i}`, type: 'tool_result', content: tool.output, is_error: Boolean(tool.error) }] },
    parent_tool_use_id: null,
    session_id: session,
  })
})
if (plan.mcp) {
  // The agent uses its Shopfloor tools: reads its context, then reports on its task.
  const context = await callShopfloor('get_context', {})
  message('msg_01', [{ type: 'tool_use', id: 'toolu_mcp1', name: 'mcp__shopfloor__get_context', input: {} }], firstUsage)
  emit({ type: 'user', message: { role: 'user', content: [{ tool_use_id: 'toolu_mcp1', type: 'tool_result', content: context, is_error: false }] }, session_id: session })
  const comment = await callShopfloor('add_comment', { body: plan.mcp, kind: 'comment' })
  message('msg_01', [{ type: 'tool_use', id: 'toolu_mcp2', name: 'mcp__shopfloor__add_comment', input: { body: plan.mcp } }], firstUsage)
  emit({ type: 'user', message: { role: 'user', content: [{ tool_use_id: 'toolu_mcp2', type: 'tool_result', content: comment, is_error: false }] }, session_id: session })
}
const totals = { input_tokens: u.input, cache_creation_input_tokens: u.cacheWrite, cache_read_input_tokens: u.cacheRead, output_tokens: u.output, server_tool_use: { web_search_requests: 0 }, service_tier: 'standard' }
const base = { duration_ms: 2345, duration_api_ms: 2100, num_turns: 3, session_id: session, total_cost_usd: plan.cost ?? 0, usage: totals, permission_denials: [], uuid: '4f7c-result' }
if (plan.fail === 'error') {
  emit({ type: 'result', subtype: 'error_during_execution', is_error: true, ...base })
  s.exit(1)
} else if (plan.fail) {
  emit({ type: 'result', subtype: 'success', is_error: true, result: plan.failText ?? FAILURES[plan.fail], ...base })
  s.exit(1)
} else {
  message('msg_02', [{ type: 'text', text: plan.reply ?? 'Done.' }], restUsage)
  emit({
    type: 'result', subtype: 'success', is_error: false, result: plan.reply ?? 'Done.', ...base,
    modelUsage: { [model]: { inputTokens: u.input, outputTokens: u.output, cacheReadInputTokens: u.cacheRead, cacheCreationInputTokens: u.cacheWrite, webSearchRequests: 0, costUSD: plan.cost ?? 0, contextWindow: 200000 } },
  })
  s.exit(0)
}
