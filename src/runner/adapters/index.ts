import type { RunnerOptions } from '../options.ts'
import type { Adapter } from './adapter.ts'
import { agentCliAdapter } from './agent-cli.ts'
import { simulatedAdapter } from './simulated.ts'
import { unimplementedAdapter } from './unimplemented.ts'

const CLI_ADAPTERS = ['agent_cli_1', 'agent_cli_2'] as const
const UNIMPLEMENTED = ['agent_cli_3', 'agent_cli_4', 'agent_cli_5', 'http']

/** The adapters this runner can take runs for, by agent `adapter` value. */
export function buildAdapters(options: RunnerOptions): Map<string, Adapter> {
  const adapters = new Map<string, Adapter>([['simulated', simulatedAdapter]])
  for (const name of UNIMPLEMENTED) adapters.set(name, unimplementedAdapter(name))
  for (const name of CLI_ADAPTERS) {
    const command = options.agentCommands[name]
    if (command) {
      adapters.set(name, agentCliAdapter(name, { command, promptVia: options.promptVia, killAfterMs: options.killAfterSeconds * 1000 }))
    }
  }
  return adapters
}

/**
 * The adapter values to claim runs for: null (every run) with --simulate, else the ones with an
 * adapter here. A runner without an agent command leaves agent_cli_1/2 runs to another runner.
 */
export function claimableAdapters(options: RunnerOptions, adapters: Map<string, Adapter>): string[] | null {
  return options.simulate ? null : [...adapters.keys()]
}

/** The adapter for a claimed run's agent (the claim only hands out claimable adapters). */
export function adapterFor(options: RunnerOptions, adapters: Map<string, Adapter>, agentAdapter: string | null): Adapter {
  if (options.simulate) return simulatedAdapter
  return adapters.get(agentAdapter ?? '') ?? unimplementedAdapter(String(agentAdapter))
}
