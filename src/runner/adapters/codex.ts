// agent_cli_2: Codex, `codex exec --json`. Events: `thread.started` (thread id: the session),
// `item.started`/`item.completed` (agent_message, reasoning, command_execution, file_change,
// mcp_tool_call, web_search, error), `turn.completed` (usage: input_tokens with
// cached_input_tokens among them, output_tokens), `turn.failed`, `error`. Codex reports no
// cost: its tokens are priced by model.
//
// The usage of turn.completed is the thread's running total, and a resumed thread goes on from
// the totals its rollout recorded last (codex-rs/core, `last_token_info_from_rollout`): after
// `resume` it counts the earlier runs of the thread again. A resumed run is charged the
// difference.
//
// Mid-run usage: `codex exec --json` gives usage only at turn.completed, once the whole run is
// over. Codex writes a `token_count` event per model response to its rollout file
// (`<codex home>/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`), with that response's
// own usage (`last_token_usage`); the adapter follows it, so that the spend guard sees each
// response as it ends and each response is priced on its own.
//
// Headless: `--dangerously-bypass-approvals-and-sandbox` (no approvals, and no sandbox of
// Codex's own: the runner's sandbox confines it, and Codex's bubblewrap cannot start inside
// another), and the Shopfloor MCP server's tools approved (`default_tools_approval_mode`):
// without it every MCP call fails with "requires approval, but approval policy is never".
import fs from 'node:fs'
import { join } from 'node:path'
import type { AdapterInput } from './adapter.ts'
import { type Dialect, cliAdapter, type CliSettings } from './cli/run.ts'
import { FileFollower, findFile } from './cli/follow-file.ts'
import { MCP_ENV, MCP_SERVER_NAME, mcpServer } from './cli/mcp.ts'
import { toolCall, toolEntry } from './cli/tool-line.ts'
import { type SeenRequests, settle, type TokenCounts } from './cli/usage.ts'

/** What Codex runs without a model setting, for pricing. */
export const CODEX_DEFAULT_MODEL = 'gpt-5-codex'

const toml = (value: unknown) => JSON.stringify(value)

export const codex: Dialect = {
  name: 'agent_cli_2',
  product: 'Codex',
  executable: 'codex',
  credentials: ['OPENAI_API_KEY', 'CODEX_API_KEY'],
  providerId: 'openai',
  supported: { from: '0.169.0', below: '1.0.0', install: 'npm install -g @openai/codex@latest' },
  args({ config, resumeSession }, extra) {
    const server = mcpServer()
    const key = `mcp_servers.${MCP_SERVER_NAME}`
    return [
      'exec', '--json', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox',
      // The MCP server gets the run's variables by name (env_vars), never their values on argv.
      '-c', `${key}.command=${toml(server.command)}`,
      '-c', `${key}.args=${toml(server.args)}`,
      '-c', `${key}.env_vars=${toml(MCP_ENV)}`,
      '-c', `${key}.default_tools_approval_mode="approve"`,
      // Required: started before the first request (its tools are offered from the first turn), and
      // a server that cannot start ends the run saying so.
      '-c', `${key}.required=true`,
      ...(config.model ? ['-m', config.model] : []),
      ...extra,
      ...(resumeSession ? ['resume', resumeSession] : []),
      '-', // the prompt on standard input
    ]
  },
  parser(input, sink) {
    const model = input.config.model ?? CODEX_DEFAULT_MODEL
    const home = codexHome(input)
    const before = input.resumeSession ? recordedTotals(home, input.resumeSession) : null
    /** The responses of this run, from the rollout, by the thread's running total after each. */
    const responses: SeenRequests = new Map()
    let follower: FileFollower | null = null
    const onRollout = (line: string) => {
      if (!line.includes('"token_count"')) return
      let info: any
      try {
        info = JSON.parse(line).payload?.info
      } catch {
        return
      }
      const last: CodexUsage | undefined = info?.last_token_usage
      const total = info?.total_token_usage?.total_tokens
      if (!last || typeof total !== 'number') return
      const counts = countsOf(last)
      responses.set(`response-${total}`, { model, counts })
      sink.meter.record(`response-${total}`, model, counts)
      sink.usageChanged()
    }
    let reply = ''
    let finished = false
    let turnError: string | null = null
    let streamError: string | null = null
    return {
      event(e) {
        if (e.type === 'thread.started' && e.thread_id) {
          sink.session(e.thread_id)
          sink.transcript('system', `Codex started (session ${e.thread_id}).\n`)
          const thread = String(e.thread_id)
          follower ??= new FileFollower(() => findFile(join(home, 'sessions'), (name) => name.endsWith(`-${thread}.jsonl`)), onRollout, Boolean(input.resumeSession))
        } else if (e.type === 'item.completed' && e.item) {
          follower?.poll()
          const item = e.item
          switch (item.type) {
            case 'agent_message':
              reply = item.text ?? ''
              sink.transcript('agent', `${reply}\n`)
              break
            case 'command_execution':
              sink.transcript('tool', toolEntry(toolCall('Shell', item.command), item.aggregated_output, typeof item.exit_code === 'number' && item.exit_code !== 0))
              break
            case 'file_change':
              sink.transcript('tool', toolEntry(toolCall('Edit', (item.changes ?? []).map((c: any) => `${c.kind ?? 'update'} ${c.path}`).join(', ')), '', item.status === 'failed'))
              break
            case 'mcp_tool_call':
              sink.transcript('tool', toolEntry(toolCall(`${item.server}.${item.tool}`, item.arguments), item.error?.message ?? item.result?.content ?? item.result, item.status === 'failed'))
              break
            case 'web_search':
              sink.transcript('tool', toolEntry(toolCall('Web search', item.query), ''))
              break
            case 'error':
              sink.transcript('system', `${item.message}\n`)
              break
          }
        } else if (e.type === 'item.started') {
          follower?.poll()
        } else if (e.type === 'turn.completed') {
          finished = true
          streamError = null
          follower?.poll()
          // The turn's totals are the truth; the responses seen in the rollout are priced one by one.
          settle(sink.meter, responses, 'turn', model, countsOf(thisRun(before, e.usage ?? {})))
          sink.usageChanged()
        } else if (e.type === 'turn.failed') {
          turnError = e.error?.message ?? 'the turn failed'
        } else if (e.type === 'error') {
          streamError = e.message ?? 'error'
          sink.transcript('system', `${streamError}\n`)
        }
      },
      outcome: () => ({ finished, reply, error: turnError ?? (finished ? null : streamError) }),
      close: () => follower?.close(),
    }
  },
}

/** Codex's counts as the meter keeps them (Codex's input_tokens count the cached ones too). */
function countsOf(u: CodexUsage): TokenCounts {
  const cached = u.cached_input_tokens ?? 0
  const cacheWrite = u.cache_write_input_tokens ?? 0
  return { input: Math.max(0, (u.input_tokens ?? 0) - cached - cacheWrite), cacheRead: cached, cacheWrite, output: u.output_tokens ?? 0 }
}

/** Token counts as Codex reports them: input_tokens counts the cached ones too. */
interface CodexUsage {
  input_tokens?: number
  cached_input_tokens?: number
  cache_write_input_tokens?: number
  output_tokens?: number
}

const USAGE_FIELDS = ['input_tokens', 'cached_input_tokens', 'cache_write_input_tokens', 'output_tokens'] as const

/** Where Codex keeps its state: $CODEX_HOME, else ~/.codex of the run's home. */
function codexHome(input: AdapterInput): string {
  return input.env.CODEX_HOME || join(input.home, '.codex')
}

/**
 * The thread's totals as Codex recorded them last: the `total_token_usage` of the last
 * `token_count` event in its rollout, `<codex home>/sessions/YYYY/MM/DD/rollout-<time>-<thread
 * id>.jsonl`. Null when there is none.
 */
function recordedTotals(home: string, threadId: string): CodexUsage | null {
  const sessions = join(home, 'sessions')
  let lines: string[]
  try {
    const file = fs.readdirSync(sessions, { recursive: true, encoding: 'utf8' }).find((f) => f.endsWith(`-${threadId}.jsonl`))
    if (!file) return null
    lines = fs.readFileSync(join(sessions, file), 'utf8').split('\n')
  } catch {
    return null
  }
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!lines[i].includes('"token_count"')) continue
    try {
      const totals = JSON.parse(lines[i]).payload?.info?.total_token_usage
      if (totals) return totals
    } catch {
      // a line cut short
    }
  }
  return null
}

/**
 * This run's share of the thread's totals: less what the thread had before it. Totals below
 * that in any count come from a Codex that started counting from zero (versions that did not
 * carry a resumed thread's totals over): they are this run's own.
 */
function thisRun(before: CodexUsage | null, totals: CodexUsage): CodexUsage {
  if (!before || USAGE_FIELDS.some((f) => (totals[f] ?? 0) < (before[f] ?? 0))) return totals
  return Object.fromEntries(USAGE_FIELDS.map((f) => [f, (totals[f] ?? 0) - (before[f] ?? 0)]))
}

export const codexAdapter = (settings: CliSettings) => cliAdapter(codex, settings)
