// agent_cli_1: Claude Code, `claude -p --output-format stream-json --verbose
// --include-partial-messages`. Events: `system` (init: session id, model), `stream_event` (the
// API's own stream events: `message_start` with the request's input usage, `message_delta` with
// its output tokens so far), `assistant` (text and tool_use blocks; its usage is the one of
// message_start, 1 token out), `user` (tool_result blocks), and the final `result` (reply,
// is_error, total_cost_usd, usage, modelUsage per model, session id). Output tokens are counted
// from message_delta as they stream: a run stopped at a spend limit never gets its `result`.
import { join } from 'node:path'
import { type Dialect, cliAdapter, type CliSettings } from './cli/run.ts'
import { envReferences, MCP_SERVER_NAME, mcpServer, mergeJsonFile } from './cli/mcp.ts'
import { toolCall, toolEntry } from './cli/tool-line.ts'
import { type SeenRequests, settle, type TokenCounts } from './cli/usage.ts'

const MCP_FILE = 'shopfloor-mcp.json'

export const claudeCode: Dialect = {
  name: 'agent_cli_1',
  product: 'Claude Code',
  executable: 'claude',
  credentials: ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN', 'ANTHROPIC_AUTH_TOKEN'],
  providerId: 'anthropic',
  supported: { from: '2.1.0', below: '3.0.0', install: 'npm install -g @anthropic-ai/claude-code@2.1' },
  args({ home, config, resumeSession }, extra) {
    return [
      '-p', '--output-format', 'stream-json', '--verbose', '--include-partial-messages',
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
    mergeJsonFile(home, MCP_FILE, (data) => {
      // alwaysLoad: connected before the first request (Claude Code 2.1 connects MCP servers in the
      // background otherwise, and a headless run's first turn goes without the Shopfloor tools).
      data.mcpServers = { ...data.mcpServers, [MCP_SERVER_NAME]: { type: 'stdio', ...mcpServer(), env: envReferences((n) => `\${${n}}`), alwaysLoad: true } }
    })
  },
  env(): Record<string, string> {
    // Claude Code refuses bypassPermissions to root unless told it runs in a sandbox: the runner
    // confines every agent in its own (docs/runner.md), where a root runner's agents are root too.
    return process.getuid?.() === 0 ? { IS_SANDBOX: '1' } : {}
  },
  parser(_input, sink) {
    const calls = new Map<string, string>()
    let model: string | null = null
    /** Each request (message id) as the stream told it so far. */
    const messages: SeenRequests = new Map()
    let current: string | null = null
    let outcome = { finished: false, reply: '', error: null as string | null }
    const recordMessage = (id: string, message: { model: string | null; counts: TokenCounts }) => {
      messages.set(id, message)
      sink.meter.record(id, message.model, message.counts)
      sink.usageChanged()
    }
    return {
      event(e) {
        if (e.type === 'system' && e.subtype === 'init') {
          model = e.model ?? null
          if (e.session_id) sink.session(e.session_id)
          sink.transcript('system', `Claude Code started (model ${e.model ?? 'default'}, session ${e.session_id ?? 'unknown'}).\n`)
        } else if (e.type === 'system' && e.subtype === 'api_retry') {
          const status = e.error_status ?? 'no answer'
          if (status === 401 || status === 403) {
            // A refused key stays refused: Claude Code would retry it for minutes.
            sink.fail(`the API refused the credentials (${status} ${e.error ?? ''})`.trim())
          } else {
            sink.transcript('system', `Claude Code: API error ${status}${e.error ? ` (${e.error})` : ''}; retry ${e.attempt ?? '?'} of ${e.max_retries ?? '?'}` +
              `${typeof e.retry_delay_ms === 'number' ? ` in ${Math.round(e.retry_delay_ms / 1000)} s` : ''}.\n`)
          }
        } else if (e.type === 'stream_event' && e.event) {
          const ev = e.event
          if (ev.type === 'message_start' && ev.message) {
            current = ev.message.id ?? `message-${messages.size}`
            recordMessage(current!, { model: ev.message.model ?? model, counts: countsOf(ev.message.usage ?? {}) })
          } else if (ev.type === 'message_delta' && current && ev.usage) {
            const known = messages.get(current)!
            // message_delta's usage is cumulative for the message; input counts come again only sometimes.
            const update = countsOf({ ...ev.usage })
            const counts = { ...known.counts, output: Math.max(known.counts.output, update.output) }
            for (const k of ['input', 'cacheRead', 'cacheWrite'] as const) if (update[k]) counts[k] = update[k]
            recordMessage(current, { model: known.model, counts })
          }
        } else if (e.type === 'assistant' && e.message) {
          for (const block of e.message.content ?? []) {
            if (block.type === 'text' && block.text) sink.transcript('agent', `${block.text}\n`)
            else if (block.type === 'tool_use') calls.set(block.id, toolCall(block.name, block.input))
          }
          const u = e.message.usage
          const id = e.message.id ?? `message-${messages.size}`
          model = e.message.model ?? model
          // Without partial messages (an older CLI), the assistant event is the only usage mid-run.
          if (u && !messages.has(id)) recordMessage(id, { model, counts: countsOf(u) })
        } else if (e.type === 'user' && e.message) {
          for (const block of Array.isArray(e.message.content) ? e.message.content : []) {
            if (block.type !== 'tool_result') continue
            sink.transcript('tool', toolEntry(calls.get(block.tool_use_id) ?? 'Tool', block.content, block.is_error === true))
            calls.delete(block.tool_use_id)
          }
        } else if (e.type === 'result') {
          if (e.session_id) sink.session(e.session_id)
          if (typeof e.total_cost_usd === 'number') sink.meter.reportCost(e.total_cost_usd)
          // The final totals per model are the truth: what the messages did not show (requests of
          // the CLI's own, such as titles) is added as one more request of that model.
          const totals: [string, TokenCounts][] = e.modelUsage && typeof e.modelUsage === 'object' && Object.keys(e.modelUsage).length
            ? Object.entries<any>(e.modelUsage).map(([name, u]) => [name, { input: u.inputTokens ?? 0, cacheRead: u.cacheReadInputTokens ?? 0, cacheWrite: u.cacheCreationInputTokens ?? 0, output: u.outputTokens ?? 0 }])
            : e.usage ? [[model ?? 'unknown', countsOf(e.usage)]] : []
          for (const [name, total] of totals) {
            const seen: SeenRequests = new Map([...messages].filter(([, m]) => totals.length === 1 || (m.model ?? 'unknown') === name))
            settle(sink.meter, seen, `result-${name}`, name, total)
          }
          sink.usageChanged()
          sink.ended()
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

/** The API's usage fields as the meter counts them. */
function countsOf(u: any): TokenCounts {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0)
  return { input: n(u.input_tokens), cacheRead: n(u.cache_read_input_tokens), cacheWrite: n(u.cache_creation_input_tokens), output: n(u.output_tokens) }
}

export const claudeCodeAdapter = (settings: CliSettings) => cliAdapter(claudeCode, settings)
