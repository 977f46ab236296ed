// agent_cli_1: Claude Code, `claude -p --output-format stream-json --verbose`. Events: `system`
// (init: session id, model), `assistant` (text and tool_use blocks, with the message's usage),
// `user` (tool_result blocks), and the final `result` (reply, is_error, total_cost_usd, usage,
// modelUsage per model, session id).
import { join } from 'node:path'
import { type Dialect, cliAdapter, type CliSettings } from './cli/run.ts'
import { envReferences, MCP_SERVER_NAME, mcpServer, mergeJsonFile } from './cli/mcp.ts'
import { toolCall, toolEntry } from './cli/tool-line.ts'

const MCP_FILE = 'shopfloor-mcp.json'

export const claudeCode: Dialect = {
  name: 'agent_cli_1',
  product: 'Claude Code',
  executable: 'claude',
  credentials: ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN', 'ANTHROPIC_AUTH_TOKEN'],
  providerId: 'anthropic',
  args({ home, config, resumeSession }, extra) {
    return [
      '-p', '--output-format', 'stream-json', '--verbose',
      // Headless: nobody is there to approve a tool call.
      '--permission-mode', 'bypassPermissions',
      '--mcp-config', join(home, MCP_FILE),
      ...(config.model ? ['--model', config.model] : []),
      ...(config.max_turns ? ['--max-turns', String(config.max_turns)] : []),
      ...(resumeSession ? ['--resume', resumeSession] : []),
      ...extra,
    ]
  },
  prepare({ home }) {
    mergeJsonFile(join(home, MCP_FILE), (data) => {
      data.mcpServers = { ...data.mcpServers, [MCP_SERVER_NAME]: { type: 'stdio', ...mcpServer(), env: envReferences((n) => `\${${n}}`) } }
    })
  },
  parser(_input, sink) {
    const calls = new Map<string, string>()
    let model: string | null = null
    let outcome = { finished: false, reply: '', error: null as string | null }
    return {
      event(e) {
        if (e.type === 'system' && e.subtype === 'init') {
          model = e.model ?? null
          if (e.session_id) sink.session(e.session_id)
          sink.transcript('system', `Claude Code started (model ${e.model ?? 'default'}, session ${e.session_id ?? 'unknown'}).\n`)
        } else if (e.type === 'assistant' && e.message) {
          for (const block of e.message.content ?? []) {
            if (block.type === 'text' && block.text) sink.transcript('agent', `${block.text}\n`)
            else if (block.type === 'tool_use') calls.set(block.id, toolCall(block.name, block.input))
          }
          const u = e.message.usage
          if (u) {
            model = e.message.model ?? model
            sink.meter.record(e.message.id ?? String(Math.random()), model, {
              input: u.input_tokens, cacheRead: u.cache_read_input_tokens, cacheWrite: u.cache_creation_input_tokens, output: u.output_tokens,
            })
            sink.usageChanged()
          }
        } else if (e.type === 'user' && e.message) {
          for (const block of Array.isArray(e.message.content) ? e.message.content : []) {
            if (block.type !== 'tool_result') continue
            sink.transcript('tool', toolEntry(calls.get(block.tool_use_id) ?? 'Tool', block.content, block.is_error === true))
            calls.delete(block.tool_use_id)
          }
        } else if (e.type === 'result') {
          if (e.session_id) sink.session(e.session_id)
          if (typeof e.total_cost_usd === 'number') sink.meter.reportCost(e.total_cost_usd)
          // The final totals replace what the messages said.
          if (e.modelUsage && typeof e.modelUsage === 'object' && Object.keys(e.modelUsage).length) {
            sink.meter.reset()
            for (const [name, u] of Object.entries<any>(e.modelUsage)) {
              sink.meter.record(name, name, { input: u.inputTokens, cacheRead: u.cacheReadInputTokens, cacheWrite: u.cacheCreationInputTokens, output: u.outputTokens })
            }
          } else if (e.usage) {
            sink.meter.reset()
            sink.meter.record('result', model, {
              input: e.usage.input_tokens, cacheRead: e.usage.cache_read_input_tokens, cacheWrite: e.usage.cache_creation_input_tokens, output: e.usage.output_tokens,
            })
          }
          sink.usageChanged()
          const failed = e.is_error === true || (e.subtype && e.subtype !== 'success')
          const reason = e.subtype === 'error_max_turns' ? 'reached its turn limit (max_turns)' : `failed (${e.subtype ?? 'error'})`
          outcome = { finished: true, reply: typeof e.result === 'string' ? e.result : '', error: failed ? (typeof e.result === 'string' && e.result ? e.result : reason) : null }
        }
      },
      outcome() {
        for (const call of calls.values()) sink.transcript('tool', toolEntry(call, '(no result)'))
        calls.clear()
        return outcome
      },
    }
  },
}

export const claudeCodeAdapter = (settings: CliSettings) => cliAdapter(claudeCode, settings)
