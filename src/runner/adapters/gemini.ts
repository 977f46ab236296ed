// agent_cli_3: Gemini CLI, `gemini --output-format stream-json`. Events: `init` (session id,
// model), `message` (role, content, delta), `tool_use` (tool_name, tool_id, parameters),
// `tool_result` (tool_id, status, output or error), `error` (severity, message) and the final
// `result` (status, error, stats: total_tokens, input_tokens with `cached` among them,
// output_tokens, per model in `models`). Gemini reports tokens only at the end and no cost:
// priced by model.
import { join } from 'node:path'
import { type Dialect, cliAdapter, type CliSettings } from './cli/run.ts'
import { envReferences, MCP_SERVER_NAME, mcpServer, mergeJsonFile } from './cli/mcp.ts'
import { toolCall, toolEntry } from './cli/tool-line.ts'

export const gemini: Dialect = {
  name: 'agent_cli_3',
  product: 'Gemini CLI',
  executable: 'gemini',
  credentials: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_APPLICATION_CREDENTIALS'],
  providerId: 'google',
  args({ config, resumeSession }, extra) {
    return [
      '--output-format', 'stream-json',
      // Headless: nobody is there to approve a tool call.
      '--approval-mode', 'yolo',
      ...(config.model ? ['--model', config.model] : []),
      ...(resumeSession ? ['--resume', resumeSession] : []),
      ...extra,
    ]
  },
  prepare({ home, config }) {
    // ~/.gemini/settings.json of the run's home (HOME).
    mergeJsonFile(join(home, '.gemini', 'settings.json'), (data) => {
      data.mcpServers = { ...data.mcpServers, [MCP_SERVER_NAME]: { ...mcpServer(), env: envReferences((n) => `$${n}`) } }
      if (config.max_turns) data.model = { ...data.model, maxSessionTurns: config.max_turns }
    })
  },
  parser({ config }, sink) {
    const calls = new Map<string, string>()
    let model = config.model ?? null
    let text = ''
    let midLine = false
    let outcome = { finished: false, reply: '', error: null as string | null }
    const endLine = () => {
      if (midLine) sink.transcript('agent', '\n')
      midLine = false
    }
    return {
      event(e) {
        if (e.type === 'init') {
          model = e.model ?? model
          if (e.session_id) sink.session(e.session_id)
          sink.transcript('system', `Gemini CLI started (model ${e.model ?? 'default'}, session ${e.session_id ?? 'unknown'}).\n`)
        } else if (e.type === 'message' && e.role === 'assistant' && typeof e.content === 'string') {
          text += e.content
          sink.transcript('agent', e.content)
          midLine = !e.content.endsWith('\n')
        } else if (e.type === 'tool_use') {
          endLine()
          text = '' // the reply is what the agent says after its last tool call
          calls.set(e.tool_id, toolCall(e.tool_name, e.parameters))
        } else if (e.type === 'tool_result') {
          sink.transcript('tool', toolEntry(calls.get(e.tool_id) ?? 'Tool', e.output ?? e.error?.message, e.status === 'error'))
          calls.delete(e.tool_id)
        } else if (e.type === 'error') {
          endLine()
          sink.transcript('system', `${e.severity === 'warning' ? 'Warning' : 'Error'}: ${e.message}\n`)
        } else if (e.type === 'result') {
          endLine()
          const stats = e.stats ?? {}
          const models = stats.models && typeof stats.models === 'object' ? Object.entries<any>(stats.models) : []
          const counts = (s: any) => ({
            input: s.input ?? (s.input_tokens ?? 0) - (s.cached ?? 0), cacheRead: s.cached, output: (s.output_tokens ?? 0) + thoughts(s),
          })
          sink.meter.reset()
          if (models.length) for (const [name, s] of models) sink.meter.record(name, name, counts(s))
          else sink.meter.record('result', model, counts(stats))
          sink.usageChanged()
          const failed = e.status === 'error'
          outcome = { finished: true, reply: text, error: failed ? `${e.error?.type ? `${e.error.type}: ` : ''}${e.error?.message ?? 'failed'}` : null }
        }
      },
      outcome() {
        for (const call of calls.values()) sink.transcript('tool', toolEntry(call, '(no result)'))
        return outcome
      },
    }
  },
}

/**
 * Thinking tokens, which Gemini bills as output tokens. The stats have no field for them:
 * output_tokens is the reply alone (the API's candidatesTokenCount), while total_tokens (its
 * totalTokenCount) counts the thoughts too. What total_tokens holds beyond input and output is
 * the thoughts (and the rare tool-use prompt tokens of Google's own tools, counted with them).
 */
function thoughts(s: any): number {
  return Math.max(0, (s.total_tokens ?? 0) - (s.input_tokens ?? 0) - (s.output_tokens ?? 0))
}

export const geminiAdapter = (settings: CliSettings) => cliAdapter(gemini, settings)
