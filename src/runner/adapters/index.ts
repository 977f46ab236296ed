import type { Logger } from 'pino'
import { CLI_ADAPTERS, type CliAdapterName, type RunnerOptions } from '../options.ts'
import type { Adapter } from './adapter.ts'
import { claudeCode } from './claude-code.ts'
import { cliAdapter, type Dialect } from './cli/run.ts'
import { codex } from './codex.ts'
import { cursor } from './cursor.ts'
import { findCli } from './detect.ts'
import { gemini } from './gemini.ts'
import { httpAdapter } from './http.ts'
import { opencode } from './opencode.ts'
import { processAdapter } from './process.ts'
import { simulatedAdapter } from './simulated.ts'

export const DIALECTS: Record<CliAdapterName, Dialect> = {
  agent_cli_1: claudeCode,
  agent_cli_2: codex,
  agent_cli_3: gemini,
  agent_cli_4: opencode,
  agent_cli_5: cursor,
}

/**
 * The adapters this runner can take runs for, by agent `adapter` value: simulated and http
 * always, process with an agent command (or agents' own, with --allow-agent-commands), and each
 * agent CLI whose executable is there. The start-up log names the CLIs found and their versions,
 * which also go into `options.versions` (by program) for the claims to tell the server.
 */
export async function buildAdapters(options: RunnerOptions, log?: Logger): Promise<Map<string, Adapter>> {
  const adapters = new Map<string, Adapter>([['simulated', simulatedAdapter], ['http', httpAdapter(process.env, options.allowAgentEnv, options.allowHttpAgentUrls)]])
  const killAfterMs = options.killAfterSeconds * 1000
  if (options.agentCommand || options.allowAgentCommands) {
    adapters.set('process', processAdapter({ command: options.agentCommand, promptVia: options.promptVia, killAfterMs }))
  }
  const found = await Promise.all(CLI_ADAPTERS.map(async (name) => {
    const dialect = DIALECTS[name]
    const command = options.cliCommands[name] ?? dialect.executable
    return [name, command, await findCli(command)] as const
  }))
  const clis: Record<string, string> = {}
  const versions: Record<string, string> = {}
  for (const [name, command, cli] of found) {
    if (!cli) {
      if (options.cliCommands[name]) log?.warn({ adapter: name, command }, `${DIALECTS[name].product} executable not found; its runs are left to other runners`)
      continue
    }
    clis[name] = `${DIALECTS[name].product} ${cli.version} (${cli.path})`
    versions[DIALECTS[name].executable] = cli.version.slice(0, 100)
    adapters.set(name, cliAdapter(DIALECTS[name], { executable: cli.path, killAfterMs, keptHomes: options.agentHomes !== null }))
  }
  log?.info({ clis }, Object.keys(clis).length ? 'agent CLIs found' : 'no agent CLI found on PATH')
  options.versions = versions
  return adapters
}

/** The adapter values to claim runs for: null (every run) with --simulate, else the ones with an adapter here. */
export function claimableAdapters(options: RunnerOptions, adapters: Map<string, Adapter>): string[] | null {
  return options.simulate ? null : [...adapters.keys()]
}

/** The adapter for a claimed run's agent (the claim only hands out claimable adapters). */
export function adapterFor(options: RunnerOptions, adapters: Map<string, Adapter>, agentAdapter: string | null): Adapter {
  if (options.simulate) return simulatedAdapter
  const adapter = adapters.get(agentAdapter ?? '')
  if (adapter) return adapter
  return {
    name: String(agentAdapter),
    run: async () => ({ ok: false, reply: '', error: `adapter "${agentAdapter}" cannot be run by this runner` }),
  }
}
