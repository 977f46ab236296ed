import type { RunContext } from '../../client/index.ts'
import type { RecognisedLimit } from './cli/limits.ts'
import type { Sandbox } from '../sandbox.ts'

export type TranscriptRole = 'agent' | 'tool' | 'system' | 'user'

/** Running totals for the run, as the report endpoint takes them. */
export interface Usage {
  tokens_in: number
  tokens_out: number
  cost_cents: number
}

export interface AdapterInput {
  context: RunContext
  prompt: string
  /** Working directory: the project's worktree or the runner's work folder. */
  cwd: string
  /**
   * The run's home folder: empty and removed after the run, or the agent's own kept home with
   * --agent-homes. CLI adapters write their configuration (MCP server) there.
   */
  home: string
  /** Environment of the agent process: the allow-list of environment.ts. */
  env: Record<string, string>
  /** The sandbox its processes start in (sandbox.ts `sandboxed`); null: none (--no-sandbox). */
  sandbox: Sandbox | null
  /** The agent's `adapter_config`, less `command`/`args` unless the runner allows them. */
  config: AgentSettings
  /** The runner user's CLI login files shared with the run (--share-cli-login); null: none. */
  sharedFiles?: { source: string; target: string }[]
  /** The run uses the runner user's CLI login (--share-cli-login) rather than a credential variable. */
  sharedLogin?: boolean
  /** The CLI session to resume (the last one of this agent on this task), with --agent-homes. */
  resumeSession: string | null
  transcript(role: TranscriptRole, text: string): void
  usage(totals: Usage): void
  /** The CLI's session id, kept with the run. */
  session(id: string): void
  /** Aborted when the run must stop (cancelled, lease lost, runner shutting down). */
  signal: AbortSignal
}

/** What an adapter reads of the agent's adapter_config (contract/adapter-config.ts). */
export interface AgentSettings {
  model?: string
  command?: string
  args?: string[]
  max_turns?: number
  url?: string
  timeout_seconds?: number
  secret_env?: string
  /** Models tried in order when the primary is overloaded or over a limit (execution.ts). */
  fallback?: { model: string; adapter?: string }[]
}

export interface AdapterResult {
  ok: boolean
  /** The agent's final reply (empty when it gave none). */
  reply: string
  /** Why the run failed; null when ok. */
  error: string | null
  /** The run failed because its provider refused for a limit (cli/limits.ts): it is deferred to the reset. */
  limit?: RecognisedLimit | null
}

/** Executes one run of an agent; never throws for the agent's own failures. */
export interface Adapter {
  readonly name: string
  /** Credential variables of the CLI passed to the agent (environment.ts). */
  readonly credentials?: readonly string[]
  /** Whether the agent has the Shopfloor MCP tools (CLI adapters), which its prompt then names. */
  readonly ownHome?: boolean
  run(input: AdapterInput): Promise<AdapterResult>
}
