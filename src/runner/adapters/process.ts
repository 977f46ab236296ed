// process: any agent command line (--agent-command, or the agent's own adapter_config.command
// and args on a runner started with --allow-agent-commands), run through the shell, in its own
// process group so that stopping it also stops whatever it started. The prompt goes to its standard
// input (default) or, with --prompt-via arg, as its last argument. Its standard output is its
// reply and is streamed into the transcript line by line; a line
//   SHOPFLOOR_USAGE {"tokens_in": 1200, "tokens_out": 340, "cost_cents": 4}
// reports usage so far (running totals) and is neither part of the reply nor of the transcript.
// Standard error is kept (its last 4,000 characters): a failed run gets it in its transcript
// and as much of its end as fits in the run's error.
import { spawn } from 'node:child_process'
import type { PromptVia } from '../options.ts'
import { sandboxed } from '../sandbox.ts'
import { ERROR_MAX_CHARS, STDERR_KEEP_CHARS, Tail } from '../text.ts'
import type { Adapter, AdapterInput, AdapterResult, Usage } from './adapter.ts'
import { splitLines, superviseAgent } from './child.ts'

const USAGE_LINE = /^SHOPFLOOR_USAGE\s+(\{.*\})\s*$/
/** The reply kept in memory: more than any report or comment uses. */
const REPLY_KEEP_CHARS = 16_000

export interface ProcessSettings {
  /** The runner's --agent-command; null when it has none. */
  command: string | null
  promptVia: PromptVia
  killAfterMs: number
}

export function processAdapter(settings: ProcessSettings): Adapter {
  return { name: 'process', run: (input) => runAgentCommand(settings, input) }
}

async function runAgentCommand(settings: ProcessSettings, input: AdapterInput): Promise<AdapterResult> {
  const command = input.config.command ?? settings.command
  if (!command) return { ok: false, reply: '', error: 'no agent command: start the runner with --agent-command' }
  const viaArg = settings.promptVia === 'arg'
  // `"$@"` passes the arguments (and the prompt) as they are; no quoting of ours involved.
  const extra = [...(input.config.args ?? []), ...(viaArg ? [input.prompt] : [])]
  const script = extra.length ? `${command} "$@"` : command
  const child = spawn(...sandboxed(input, '/bin/sh', ['-c', script, 'shopfloor-agent', ...extra]), {
    cwd: input.cwd,
    env: input.env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  })

  let reply = ''
  const stderr = new Tail(STDERR_KEEP_CHARS)
  const onStdoutLine = (line: string) => {
    const usage = USAGE_LINE.exec(line)
    if (usage) {
      const totals = parseUsage(usage[1])
      if (totals) input.usage(totals)
      return
    }
    if (reply.length < REPLY_KEEP_CHARS) reply += `${line}\n`
    input.transcript('agent', `${line}\n`)
  }
  splitLines(child.stdout, onStdoutLine)
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk))

  child.stdin.on('error', () => {}) // an agent that exits without reading its input is fine
  child.stdin.end(viaArg ? undefined : input.prompt)

  const exit = await superviseAgent(child, input.signal, settings.killAfterMs)
  if (exit.spawnError) return { ok: false, reply: '', error: `could not start the agent command: ${exit.spawnError.message}` }
  if (exit.code === 0 && !exit.stopped) return { ok: true, reply: reply.trim(), error: null }
  const how = `agent command ${exit.stopped ? 'was stopped' : exit.code !== null ? `exited with code ${exit.code}` : `was killed by ${exit.signal}`}`
  const tail = stderr.toString().trim()
  if (tail) input.transcript('system', `Standard error of the agent (last ${STDERR_KEEP_CHARS} characters):\n${tail}\n`)
  // The end of stderr says the most; the error keeps as much of it as the report allows.
  const room = ERROR_MAX_CHARS - how.length - 2
  return { ok: false, reply: reply.trim(), error: tail ? `${how}: ${tail.slice(-room)}` : how }
}

function parseUsage(json: string): Usage | null {
  try {
    const value = JSON.parse(json)
    const field = (name: string) => (Number.isInteger(value?.[name]) && value[name] >= 0 ? value[name] : 0)
    return { tokens_in: field('tokens_in'), tokens_out: field('tokens_out'), cost_cents: field('cost_cents') }
  } catch {
    return null
  }
}
