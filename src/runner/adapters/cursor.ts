// agent_cli_5: Cursor's agent CLI, `cursor-agent -p --output-format stream-json`. Events:
// `system` (init: session_id, model), `user`, `assistant` (message.content text), `tool_call`
// (subtype started/completed, call_id, tool_call: {readToolCall|writeToolCall|...: {args,
// result}} or {function: {name, arguments}}), and the final `result` (subtype, is_error,
// result, session_id, and usage when the CLI reports it). No cost: priced by model.
import { join } from 'node:path'
import { type Dialect, cliAdapter, type CliSettings } from './cli/run.ts'
import { envReferences, MCP_SERVER_NAME, mcpServer, mergeJsonFile } from './cli/mcp.ts'
import { toolCall, toolEntry } from './cli/tool-line.ts'

export const cursor: Dialect = {
  name: 'agent_cli_5',
  product: 'Cursor Agent',
  executable: 'cursor-agent',
  credentials: ['CURSOR_API_KEY'],
  // Its stream has no usage before the final result (its published output format).
  usageOnlyAtEnd: true,
  args({ config, resumeSession }, extra) {
    return [
      '-p', '--output-format', 'stream-json',
      // Headless: apply changes and start the configured MCP servers without asking.
      '--force', '--approve-mcps',
      ...(config.model ? ['--model', config.model] : []),
      ...(resumeSession ? ['--resume', resumeSession] : []),
      ...extra,
    ]
  },
  prepare({ home }) {
    // ~/.cursor/mcp.json of the run's home (HOME).
    mergeJsonFile(home, join('.cursor', 'mcp.json'), (data) => {
      data.mcpServers = { ...data.mcpServers, [MCP_SERVER_NAME]: { ...mcpServer(), env: envReferences((n) => `\${env:${n}}`) } }
    })
  },
  parser({ config }, sink) {
    const calls = new Map<string, string>()
    let model = config.model ?? null
    let text = ''
    let outcome = { finished: false, reply: '', error: null as string | null }
    return {
      event(e) {
        if (e.type === 'system' && e.subtype === 'init') {
          model = config.model ?? e.model ?? null
          if (e.session_id) sink.session(e.session_id)
          sink.transcript('system', `Cursor Agent started (model ${e.model ?? 'default'}, session ${e.session_id ?? 'unknown'}).\n`)
        } else if (e.type === 'assistant' && e.message) {
          for (const block of e.message.content ?? []) {
            if (block.type === 'text' && block.text) {
              text = block.text
              sink.transcript('agent', `${block.text}\n`)
            }
          }
        } else if (e.type === 'tool_call') {
          const [kind, body] = Object.entries<any>(e.tool_call ?? {})[0] ?? ['tool', {}]
          const name = kind === 'function' ? body?.name ?? 'function' : kind.replace(/ToolCall$/, '')
          const args = kind === 'function' ? body?.arguments : body?.args
          if (e.subtype === 'started') calls.set(e.call_id, toolCall(name, args))
          else if (e.subtype === 'completed') {
            const result = body?.result ?? {}
            const failed = Boolean(result.error ?? result.failure ?? result.rejected)
            const output = result.success?.content ?? result.success?.stdout ?? result.success ?? result.error ?? result.failure ?? result
            sink.transcript('tool', toolEntry(calls.get(e.call_id) ?? toolCall(name, args), output, failed))
            calls.delete(e.call_id)
          }
        } else if (e.type === 'result') {
          if (e.session_id) sink.session(e.session_id)
          const u = e.usage
          if (u) {
            sink.meter.reset()
            sink.meter.record('result', model, { input: u.inputTokens, output: u.outputTokens, cacheRead: u.cacheReadTokens, cacheWrite: u.cacheWriteTokens })
            sink.usageChanged()
          }
          const failed = e.is_error === true || (e.subtype && e.subtype !== 'success')
          const reply = typeof e.result === 'string' ? e.result : text
          outcome = { finished: true, reply, error: failed ? reply || `failed (${e.subtype ?? 'error'})` : null }
        }
      },
      outcome() {
        for (const call of calls.values()) sink.transcript('tool', toolEntry(call, '(no result)'))
        return outcome
      },
    }
  },
}

export const cursorAdapter = (settings: CliSettings) => cliAdapter(cursor, settings)
