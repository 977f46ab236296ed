// One run of an agent CLI: its executable started without a shell, in its own process group,
// the prompt on standard input, its JSON-lines output read by the CLI's dialect (transcript,
// usage, session id, final reply, errors), standard error kept for a failure's message.
import { spawn } from 'node:child_process'
import { exitThroughSandbox, sandboxed } from '../../sandbox.ts'
import { ERROR_MAX_CHARS, STDERR_KEEP_CHARS, Tail } from '../../text.ts'
import type { Adapter, AdapterInput, AdapterResult } from '../adapter.ts'
import { splitLines, superviseAgent } from '../child.ts'
import { failureMessage } from './errors.ts'
import { providerOf, recogniseLimit, SHORT_RETRY_ENV } from './limits.ts'
import { UsageMeter } from './usage.ts'
import type { VersionRange } from '../versions.ts'

/** What a dialect tells the run as it reads the CLI's output. */
export interface DialectSink {
  transcript: AdapterInput['transcript']
  session(id: string): void
  meter: UsageMeter
  /** Sends the running totals (after the meter changed). */
  usageChanged(): void
  /**
   * Ends the run now as failed for `detail` (classified like the CLI's own errors): for what no
   * retry of the CLI's can mend, such as a refused key it would otherwise retry for minutes.
   */
  fail(detail: string): void
  /**
   * The CLI gave its final result: it has RESULT_GRACE_MS to exit, then it is stopped (Gemini CLI
   * stays up after an API error with its MCP servers still connected).
   */
  ended(): void
}

/** How long a CLI may take to exit after its final result. */
const RESULT_GRACE_MS = 5000

export interface Outcome {
  /** The final result message was seen. */
  finished: boolean
  reply: string
  /** An error the CLI reported (null when none). */
  error: string | null
}

/** Reads one CLI's output events. */
export interface DialectParser {
  event(event: any): void
  outcome(): Outcome
  /** Ends whatever the parser follows besides the output (a CLI's usage file), once the CLI has exited. */
  close?(): void
  /** Each line of the CLI's standard error, for a CLI that says there what its events do not (OpenCode's retries). */
  stderrLine?(line: string): void
}

export interface Dialect {
  name: string
  /** The product, in messages: "Claude Code". */
  product: string
  /** The executable's usual name, found on PATH. */
  executable: string
  /** Credential variables of the CLI: passed to the agent, and one of them needed without a kept home. */
  credentials: readonly string[]
  providerId?: string
  /** The CLI reports usage only at its end: the spend guard cannot stop it mid-run (said in the transcript). */
  usageOnlyAtEnd?: boolean
  /** The releases the adapter works with; none: any (a CLI not tested against a release). */
  supported?: VersionRange
  /** The arguments, with the agent's own `extra` ones in their place; the prompt goes to standard input. */
  args(input: AdapterInput, extra: string[]): string[]
  /** Writes the CLI's configuration (the MCP server) into the run's home. */
  prepare?(input: AdapterInput): void
  /** Variables the CLI needs besides the run's environment (its headless settings). */
  env?(input: AdapterInput): Record<string, string>
  parser(input: AdapterInput, sink: DialectSink): DialectParser
}

export interface CliSettings {
  /** Path of the executable found at start (or set by flag, environment or config file). */
  executable: string
  killAfterMs: number
  /** Homes are kept per agent (--agent-homes): a login there may stand in for a credential variable. */
  keptHomes: boolean
}

export function cliAdapter(dialect: Dialect, settings: CliSettings): Adapter {
  return {
    name: dialect.name,
    credentials: dialect.credentials,
    ownHome: true,
    run: (input) => runCli(dialect, settings, input),
  }
}

async function runCli(dialect: Dialect, settings: CliSettings, input: AdapterInput): Promise<AdapterResult> {
  const { product, credentials } = dialect
  if (!settings.keptHomes && !input.sharedLogin && credentials.length && !credentials.some((name) => input.env[name])) {
    return {
      ok: false,
      reply: '',
      error: `${product}: credentials missing: set ${credentials.join(' or ')} in the runner's environment ` +
        '(or log the CLI in as the runner\'s user and start the runner with --share-cli-login, or use --agent-homes and log it in there)',
    }
  }
  dialect.prepare?.(input)
  const executable = input.config.command ?? settings.executable
  const args = dialect.args(input, input.config.args ?? [])
  input.transcript('system', `Running ${product}: ${[executable, ...args].join(' ')}\n`)
  if (dialect.usageOnlyAtEnd) {
    input.transcript('system', `${product} reports its usage only when it ends: spend limits are checked then, not while it runs.\n`)
  }

  const meter = new UsageMeter(dialect.providerId)
  const failing = new AbortController()
  let failure: string | null = null
  /** Aborted when a CLI lingers after its final result. */
  const lingering = new AbortController()
  let graceTimer: NodeJS.Timeout | undefined
  const sink: DialectSink = {
    transcript: input.transcript,
    session: input.session,
    meter,
    usageChanged: () => input.usage(meter.totals()),
    fail(detail) {
      failure ??= detail
      failing.abort()
    },
    ended() {
      graceTimer ??= setTimeout(() => {
        input.transcript('system', `${product} did not exit ${RESULT_GRACE_MS / 1000} s after its final result; stopped.\n`)
        lingering.abort()
      }, RESULT_GRACE_MS)
    },
  }
  const parser = dialect.parser(input, sink)
  const stderr = new Tail(STDERR_KEEP_CHARS)

  const env = { ...SHORT_RETRY_ENV[dialect.name], ...input.env, ...dialect.env?.(input) }
  const child = spawn(...sandboxed(input, executable, args), { cwd: input.cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] })
  splitLines(child.stdout, (line) => {
    if (!line.trim()) return
    let event: unknown
    try {
      event = JSON.parse(line)
    } catch {
      // Banners and warnings some CLIs (or a wrapper around one) print among their events, kept
      // as text. One printed without its line end has the next event glued after it: read on.
      const glued = gluedEvent(line)
      input.transcript('system', `${(glued ? line.slice(0, glued.at) : line).slice(0, 2000)}\n`)
      if (!glued) return
      event = glued.event
    }
    try {
      parser.event(event)
    } catch (err: any) {
      input.transcript('system', `Could not read an event of ${product}: ${err.message}\n`)
    }
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk))
  if (parser.stderrLine) splitLines(child.stderr, (line) => parser.stderrLine!(line))
  child.stdin.on('error', () => {}) // a CLI that exits without reading its input is fine
  child.stdin.end(input.prompt)

  const exit = exitThroughSandbox(await superviseAgent(child, AbortSignal.any([input.signal, failing.signal, lingering.signal]), settings.killAfterMs), input.sandbox)
  clearTimeout(graceTimer)
  parser.close?.()

  if (exit.spawnError) {
    const missing = exit.spawnError.code === 'ENOENT'
    return {
      ok: false,
      reply: '',
      error: `${product}: ${missing ? 'executable not found' : 'could not start'}: ${executable}${missing ? '' : ` (${exit.spawnError.message})`}`,
    }
  }

  const outcome = parser.outcome()
  input.usage(meter.totals())
  input.transcript('system', `${meter.line()}\n`)
  const tail = stderr.toString().trim()
  const fail = (detail: string): AdapterResult => {
    if (tail) input.transcript('system', `Standard error of ${product} (last ${STDERR_KEEP_CHARS} characters):\n${tail}\n`)
    const message = failureMessage(product, detail, credentials)
    const limit = recogniseLimit(`${detail}\n${tail}`, providerOf(dialect, input.config.model))
    return { ok: false, reply: outcome.reply, error: message.slice(0, ERROR_MAX_CHARS), limit }
  }
  if (failure && !input.signal.aborted) return fail(failure)
  if (exit.stopped && !lingering.signal.aborted) return { ok: false, reply: outcome.reply, error: `${product} was stopped` }
  if (outcome.error) return fail(outcome.error)
  if (exit.code !== 0 && !lingering.signal.aborted) {
    const how = exit.code !== null ? `exited with code ${exit.code}` : `was killed by ${exit.signal}`
    return fail(tail ? `${how}: ${tail.slice(-(ERROR_MAX_CHARS - 200))}` : how)
  }
  if (!outcome.finished) return fail(`ended without its final result message${tail ? `: ${tail.slice(-1000)}` : ''}`)
  return { ok: true, reply: outcome.reply.trim(), error: null }
}

/** The JSON event at the end of a line that does not parse whole (after a banner with no line end), or null. */
function gluedEvent(line: string): { at: number; event: unknown } | null {
  const at = line.indexOf('{"')
  if (at <= 0) return null
  try {
    return { at, event: JSON.parse(line.slice(at)) }
  } catch {
    return null
  }
}
