import type { RunContext } from '../../client/index.ts'

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
  /** Environment of the agent process (API-DECISIONS.md names the variables). */
  env: NodeJS.ProcessEnv
  transcript(role: TranscriptRole, text: string): void
  usage(totals: Usage): void
  /** Aborted when the run must stop (cancelled, lease lost, runner shutting down). */
  signal: AbortSignal
}

export interface AdapterResult {
  ok: boolean
  /** The agent's final reply (empty when it gave none). */
  reply: string
  /** Why the run failed; null when ok. */
  error: string | null
}

/** Executes one run of an agent; never throws for the agent's own failures. */
export interface Adapter {
  readonly name: string
  run(input: AdapterInput): Promise<AdapterResult>
}
