import type { Logger } from 'pino'
import { CLI_ADAPTERS, type CliAdapterName, type RunnerOptions } from '../options.ts'
import type { Adapter } from './adapter.ts'
import { claudeCode } from './claude-code.ts'
import { cliAdapter, type Dialect } from './cli/run.ts'
import { codex } from './codex.ts'
import { cursor } from './cursor.ts'
import { type FoundCli, findCli } from './detect.ts'
import { gemini } from './gemini.ts'
import { httpAdapter } from './http.ts'
import { opencode } from './opencode.ts'
import { processAdapter } from './process.ts'
import { simulatedAdapter } from './simulated.ts'
import { checkVersion, type VersionCheck } from './versions.ts'

export const DIALECTS: Record<CliAdapterName, Dialect> = {
  agent_cli_1: claudeCode,
  agent_cli_2: codex,
  agent_cli_3: gemini,
  agent_cli_4: opencode,
  agent_cli_5: cursor,
}

/** An agent CLI as this runner finds it: its executable, `--version` and whether that is supported. */
export interface CliFound {
  adapter: CliAdapterName
  dialect: Dialect
  /** What was looked for: the configured executable, or the usual name on PATH. */
  command: string
  /** Set by flag, environment or config file (not found: worth a warning). */
  configured: boolean
  cli: FoundCli | null
  check: VersionCheck | null
}

/** Looks for every agent CLI at once (each `--version` takes up to a few seconds). */
export async function detectClis(options: Pick<RunnerOptions, 'cliCommands'>): Promise<CliFound[]> {
  return Promise.all(CLI_ADAPTERS.map(async (adapter) => {
    const dialect = DIALECTS[adapter]
    const command = options.cliCommands[adapter] ?? dialect.executable
    const cli = await findCli(command)
    return { adapter, dialect, command, configured: Boolean(options.cliCommands[adapter]), cli, check: cli ? checkVersion(dialect.product, cli.version, dialect.supported) : null }
  }))
}

/**
 * The adapters this runner can take runs for, by agent `adapter` value: simulated and http
 * always, process with an agent command (or agents' own, with --allow-agent-commands), and each
 * agent CLI whose executable is there in a supported version (one outside its range is refused
 * with a warning that says which versions work). The start-up log names the CLIs found and their
 * versions, which also go into `options.versions` (by program) for the claims to tell the server.
 */
export async function buildAdapters(options: RunnerOptions, log?: Logger): Promise<Map<string, Adapter>> {
  const adapters = new Map<string, Adapter>([['simulated', simulatedAdapter], ['http', httpAdapter(process.env, options.allowAgentEnv, options.allowHttpAgentUrls)]])
  const killAfterMs = options.killAfterSeconds * 1000
  if (options.agentCommand || options.allowAgentCommands) {
    adapters.set('process', processAdapter({ command: options.agentCommand, promptVia: options.promptVia, killAfterMs }))
  }
  const clis: Record<string, string> = {}
  const versions: Record<string, string> = {}
  for (const { adapter: name, dialect, command, configured, cli, check } of await detectClis(options)) {
    if (!cli) {
      if (configured) log?.warn({ adapter: name, command }, `${dialect.product} executable not found; its runs are left to other runners`)
      continue
    }
    versions[dialect.executable] = cli.version.slice(0, 100)
    if (check && !check.supported) {
      log?.warn({ adapter: name, path: cli.path, version: cli.version }, `${check.problem}; its runs are left to other runners`)
      continue
    }
    clis[name] = `${dialect.product} ${cli.version} (${cli.path})`
    adapters.set(name, cliAdapter(dialect, { executable: cli.path, killAfterMs, keptHomes: options.agentHomes !== null }))
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
