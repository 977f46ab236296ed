// agent_cli_3: Gemini CLI, `gemini --output-format stream-json`. Events: `init` (session id,
// model), `message` (role, content, delta), `tool_use` (tool_name, tool_id, parameters),
// `tool_result` (tool_id, status, output or error), `error` (severity, message) and the final
// `result` (status, error, stats: total_tokens, input_tokens with `cached` among them,
// output_tokens, per model in `models`). Gemini reports tokens only at the end and no cost:
// priced by model.
//
// Mid-run usage: Gemini CLI records the session as it goes in
// `~/.gemini/tmp/<project>/chats/session-<time>-<session id's first 8>.jsonl`, each model
// response a `gemini` record with its own `tokens` (input with `cached` among them, output,
// thoughts, tool); the adapter follows that file, so that the spend guard sees each response as it
// ends and each is priced on its own.
//
// Headless: `--approval-mode yolo`; the run's folder (only it) trusted in
// ~/.gemini/trustedFolders.json (Gemini CLI refuses an untrusted folder without a person, exit
// 55); and with GEMINI_API_KEY given, the API key chosen as the way to sign in unless the
// settings choose one (a gateway address in GOOGLE_GEMINI_BASE_URL otherwise selects an
// authentication the CLI then refuses).
import { join } from 'node:path'
import { FileFollower, findFile } from './cli/follow-file.ts'
import { type Dialect, cliAdapter, type CliSettings } from './cli/run.ts'
import { envReferences, MCP_SERVER_NAME, mcpServer, mergeJsonFile } from './cli/mcp.ts'
import { toolCall, toolEntry } from './cli/tool-line.ts'
import { type SeenRequests, settle, type TokenCounts } from './cli/usage.ts'

/** Gemini CLI's tries of one model request (general.maxAttempts; its default is 10). */
const GEMINI_MAX_ATTEMPTS = 3

export const gemini: Dialect = {
  name: 'agent_cli_3',
  product: 'Gemini CLI',
  executable: 'gemini',
  credentials: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_APPLICATION_CREDENTIALS'],
  providerId: 'google',
  supported: { from: '0.61.0', below: '1.0.0', install: 'npm install -g @google/gemini-cli@latest' },
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
  prepare({ home, config, cwd, env }) {
    // ~/.gemini/settings.json of the run's home (HOME).
    mergeJsonFile(home, join('.gemini', 'settings.json'), (data) => {
      data.mcpServers = { ...data.mcpServers, [MCP_SERVER_NAME]: { ...mcpServer(), env: envReferences((n) => `$${n}`) } }
      if (config.max_turns) data.model = { ...data.model, maxSessionTurns: config.max_turns }
      // Three attempts at an overloaded or failing model, not ten over minutes (5 s doubling up to
      // 30 s between them), as Claude Code's retries are kept short (cli/limits.ts); a kept home
      // that sets its own keeps it.
      if (data.general?.maxAttempts === undefined) data.general = { ...data.general, maxAttempts: GEMINI_MAX_ATTEMPTS }
      if (env.GEMINI_API_KEY && !data.security?.auth?.selectedType) {
        data.security = { ...data.security, auth: { ...data.security?.auth, selectedType: 'gemini-api-key' } }
      }
    })
    // Trusted: the run's folder alone (a kept home forgets the folders of earlier runs).
    mergeJsonFile(home, join('.gemini', 'trustedFolders.json'), (data) => {
      for (const key of Object.keys(data)) delete data[key]
      data[cwd] = 'TRUST_FOLDER'
    })
  },
  parser({ config, home }, sink) {
    const calls = new Map<string, string>()
    let model = config.model ?? null
    /** The responses recorded in the chat file, by record id. */
    const responses: SeenRequests = new Map()
    let follower: FileFollower | null = null
    const onRecord = (line: string) => {
      if (!line.includes('"tokens"')) return
      let record: any
      try {
        record = JSON.parse(line)
      } catch {
        return
      }
      if (record.type !== 'gemini' || !record.tokens || !record.id) return
      const t = record.tokens
      const counts: TokenCounts = {
        input: Math.max(0, (t.input ?? 0) - (t.cached ?? 0)) + (t.tool ?? 0), cacheRead: t.cached ?? 0, cacheWrite: 0, output: (t.output ?? 0) + (t.thoughts ?? 0),
      }
      responses.set(record.id, { model: record.model ?? model, counts })
      sink.meter.record(record.id, record.model ?? model, counts)
      sink.usageChanged()
    }
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
          if (e.session_id) {
            sink.session(e.session_id)
            const prefix = String(e.session_id).slice(0, 8)
            follower ??= new FileFollower(
              () => findFile(join(home, '.gemini', 'tmp'), (name) => name.startsWith('session-') && name.endsWith(`-${prefix}.jsonl`)),
              onRecord,
            )
          }
          sink.transcript('system', `Gemini CLI started (model ${e.model ?? 'default'}, session ${e.session_id ?? 'unknown'}).\n`)
        } else if (e.type === 'message' && e.role === 'assistant' && typeof e.content === 'string') {
          text += e.content
          sink.transcript('agent', e.content)
          midLine = !e.content.endsWith('\n')
        } else if (e.type === 'tool_use') {
          follower?.poll()
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
            input: s.input ?? (s.input_tokens ?? 0) - (s.cached ?? 0), cacheRead: s.cached ?? 0, output: (s.output_tokens ?? 0) + thoughts(s),
          })
          follower?.poll()
          // The final totals are the truth; the responses seen in the chat file are priced one by one.
          const totals: [string | null, any][] = models.length ? models : [[model, stats]]
          for (const [name, s] of totals) {
            const seen: SeenRequests = new Map([...responses].filter(([, r]) => totals.length === 1 || r.model === name))
            settle(sink.meter, seen, `result-${name}`, name, { cacheWrite: 0, ...counts(s) })
          }
          sink.usageChanged()
          sink.ended()
          const failed = e.status === 'error'
          outcome = { finished: true, reply: text, error: failed ? `${e.error?.type ? `${e.error.type}: ` : ''}${e.error?.message ?? 'failed'}` : null }
        }
      },
      outcome() {
        for (const call of calls.values()) sink.transcript('tool', toolEntry(call, '(no result)'))
        return outcome
      },
      close: () => follower?.close(),
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
