// agent_cli_4: OpenCode, `opencode run --format json`. Events, each with `sessionID` and a
// `part`: `step_start`, `text` (part.text), `tool_use` (part.tool, part.state: status, input,
// output, error), `step_finish` (part.cost in US dollars, part.tokens: input, output,
// reasoning, cache.read, cache.write), and `error` (error.name, error.data.message).
import { join } from 'node:path'
import type { AdapterInput } from './adapter.ts'
import { type Dialect, cliAdapter, type CliSettings } from './cli/run.ts'
import { envReferences, MCP_SERVER_NAME, mcpServer, mergeJsonFile } from './cli/mcp.ts'
import { toolCall, toolEntry } from './cli/tool-line.ts'

/** Failed model requests in a row after which a run stops waiting for OpenCode's endless retries. */
const STREAM_ERRORS_MAX = 3

export const opencode: Dialect = {
  name: 'agent_cli_4',
  product: 'OpenCode',
  executable: 'opencode',
  credentials: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY', 'OPENROUTER_API_KEY', 'OPENCODE_API_KEY'],
  supported: { from: '1.18.0', below: '2.0.0', install: 'npm install -g opencode-ai@1' },
  args({ config, resumeSession, context }, extra) {
    return [
      'run', '--format', 'json',
      // Its errors on standard error: a failing model request is retried there without end and
      // without an event (stderrLine below ends that).
      '--print-logs', '--log-level', 'ERROR',
      ...(config.model ? ['--model', config.model] : []),
      // A new session is given its title: else OpenCode asks the model for one in a request of
      // its own, whose tokens no event reports (the run's usage would fall short of the bill).
      ...(resumeSession ? ['--session', resumeSession] : ['--title', sessionTitle(context)]),
      ...extra,
    ]
  },
  prepare({ home }) {
    // $XDG_CONFIG_HOME/opencode/opencode.json, XDG_CONFIG_HOME being the run's home.
    const { command, args } = mcpServer()
    mergeJsonFile(home, join('opencode', 'opencode.json'), (data) => {
      data.$schema ??= 'https://opencode.ai/config.json'
      data.mcp = {
        ...data.mcp,
        [MCP_SERVER_NAME]: { type: 'local', command: [command, ...args], environment: envReferences((n) => `{env:${n}}`), enabled: true },
      }
    })
  },
  parser({ config }, sink) {
    let session = false
    let text = ''
    let steps = 0
    let cost = 0
    let finished = false
    let error: string | null = null
    let streamErrors = 0
    return {
      stderrLine(line) {
        // `level=ERROR ... message="stream error" ... error.error="AI_APICallError: Overloaded"`, once
        // per attempt: OpenCode retries an overloaded or rate-limited provider for as long as it takes.
        const failed = /message="stream error".*error\.error="((?:[^"\\]|\\.)*)"/.exec(line)
        if (failed && ++streamErrors === STREAM_ERRORS_MAX) {
          sink.fail(`the model request failed ${STREAM_ERRORS_MAX} times and OpenCode kept retrying: ${failed[1]!.replace(/\\"/g, '"')}`)
        }
      },
      event(e) {
        if (!session && e.sessionID) {
          session = true
          sink.session(e.sessionID)
          sink.transcript('system', `OpenCode started (session ${e.sessionID}).\n`)
        }
        const part = e.part ?? {}
        if (e.type === 'text' && typeof part.text === 'string') {
          text = part.text
          sink.transcript('agent', `${part.text}\n`)
        } else if (e.type === 'tool_use') {
          const state = part.state ?? {}
          if (state.status === 'completed' || state.status === 'error') {
            sink.transcript('tool', toolEntry(toolCall(part.tool ?? 'tool', state.input), state.status === 'error' ? state.error : state.output, state.status === 'error'))
          }
        } else if (e.type === 'step_finish') {
          finished = true
          const t = part.tokens ?? {}
          sink.meter.record(part.id ?? `step-${steps}`, config.model ?? null, {
            input: t.input, output: (t.output ?? 0) + (t.reasoning ?? 0), cacheRead: t.cache?.read, cacheWrite: t.cache?.write,
          })
          steps++
          if (typeof part.cost === 'number') sink.meter.reportCost((cost += part.cost))
          sink.usageChanged()
        } else if (e.type === 'error') {
          const err = e.error ?? {}
          // The API's status says what kind of failure it was (a refused key: 401).
          const status = err.data?.statusCode ? ` (${err.data.statusCode})` : ''
          error = [`${err.name ?? ''}${status}`.trim(), err.data?.message ?? err.message].filter(Boolean).join(': ') || 'error'
        }
      },
      outcome: () => ({ finished, reply: text, error }),
    }
  },
}

/** "ENG-12: Fix the login page", or the run's id without a task. */
function sessionTitle(context: AdapterInput['context']): string {
  const task = context.task
  return (task ? `${task.key}: ${task.title}` : `Shopfloor run ${context.run.id}`).replace(/\s+/g, ' ').slice(0, 200)
}

export const opencodeAdapter = (settings: CliSettings) => cliAdapter(opencode, settings)
