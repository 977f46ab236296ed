// A project's checks (named commands with timeouts) run in the run's worktree after the agent,
// one after another, on runners whose operator allowed them (--allow-checks); elsewhere each
// is recorded `skipped`. A check is started exactly as a `process` agent is (the process
// adapter), so whatever confines agents confines checks too; it gets the agent's environment
// without the run's credential (a check builds and tests, it does not act for the agent).
import type { RunContext } from '../../client/index.ts'
import { CHECK_OUTPUT_TAIL_CHARS, type Check, type CheckResult } from '../../contract/work.ts'
import type { AdapterInput } from '../adapters/adapter.ts'
import { processAdapter } from '../adapters/process.ts'
import type { Sandbox } from '../sandbox.ts'
import { Tail } from '../text.ts'

export interface ChecksInput {
  context: RunContext
  cwd: string
  home: string
  env: Record<string, string>
  sandbox: Sandbox | null
  allowed: boolean
  killAfterMs: number
  /** The run's own stop (cancelled, lease lost, shutdown): the check in progress stops too. */
  signal: AbortSignal
  note(text: string): void
}

export async function runChecks(input: ChecksInput): Promise<CheckResult[]> {
  const checks = (input.context.project?.checks ?? []) as Check[]
  if (!checks.length) return []
  if (!input.allowed) {
    input.note(`The project's checks were not run: this runner was not started with --allow-checks.\n`)
    return checks.map((c) => ({ name: c.name, status: 'skipped', exit_code: null, duration_ms: 0, output_tail: 'Not run: the runner was not started with --allow-checks.' }))
  }
  const results: CheckResult[] = []
  for (const check of checks) {
    if (input.signal.aborted) break
    input.note(`Check "${check.name}": ${check.command}\n`)
    const result = await runCheck(check, input)
    input.note(`Check "${check.name}" ${result.status === 'timed_out' ? `timed out after ${check.timeout_seconds} s` : result.status}` +
      `${result.exit_code !== null ? ` (exit code ${result.exit_code})` : ''} in ${result.duration_ms} ms.\n`)
    results.push(result)
  }
  return results
}

async function runCheck(check: Check, input: ChecksInput): Promise<CheckResult> {
  const timeout = AbortSignal.timeout(check.timeout_seconds * 1000)
  const output = new Tail(CHECK_OUTPUT_TAIL_CHARS)
  const { SHOPFLOOR_API_KEY: _credential, ...env } = input.env
  const started = performance.now()
  const adapterInput: AdapterInput = {
    context: input.context,
    prompt: '',
    cwd: input.cwd,
    home: input.home,
    env,
    sandbox: input.sandbox,
    config: {},
    resumeSession: null,
    transcript: (role, text) => output.push(role === 'system' ? text.replace(/^Standard error of the agent[^\n]*\n/, '') : text),
    usage: () => {},
    session: () => {},
    signal: AbortSignal.any([timeout, input.signal]),
  }
  const result = await processAdapter({ command: check.command, promptVia: 'stdin', killAfterMs: input.killAfterMs }).run(adapterInput)
  const duration = Math.round(performance.now() - started)
  const code = /exited with code (\d+)/.exec(result.error ?? '')
  const status = result.ok ? 'passed' : timeout.aborted && !input.signal.aborted ? 'timed_out' : 'failed'
  return {
    name: check.name,
    status,
    exit_code: result.ok ? 0 : code ? Number(code[1]) : null,
    duration_ms: duration,
    output_tail: output.toString(),
  }
}
