// The runner's settings: command-line flags first, then environment variables, then the runner
// config file ($XDG_CONFIG_HOME/shopfloor/runner.json or --config), then defaults.
import { existsSync, readFileSync } from 'node:fs'
import { homedir, hostname, userInfo } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'

export type SuccessStatus = 'in_review' | 'done'
export type PromptVia = 'stdin' | 'arg'
export const CLI_ADAPTERS = ['agent_cli_1', 'agent_cli_2', 'agent_cli_3', 'agent_cli_4', 'agent_cli_5'] as const
export type CliAdapterName = (typeof CLI_ADAPTERS)[number]

export interface RunnerOptions {
  url: string
  apiKey: string
  companyId: string
  runnerId: string
  /** Runs executed at the same time (SPEC.md: 2). */
  concurrency: number
  /** Safety-net claim poll (SPEC.md: 30 s, at least 5). */
  pollSeconds: number
  heartbeatSeconds: number
  /** Transcript flush interval and buffered size (SPEC.md: 2 s or 4,096 characters). */
  flushSeconds: number
  flushChars: number
  /** How long SIGTERM waits for runs in progress before stopping them. */
  graceSeconds: number
  /** Between the terminate signal and the kill of an agent process (SPEC.md: 5 s). */
  killAfterSeconds: number
  /**
   * The longest a run may take, from its start here (0: no limit). Heartbeats keep the lease of a
   * run whose agent hangs, so without this limit nothing would ever end it.
   */
  runTimeoutSeconds: number
  /**
   * Multiplies every wait between attempts: API calls tried again (0.5 s doubling), the event
   * stream's reconnection (SPEC.md: 2, 4, 8, 16, then 30 s) and the final report's re-sends
   * (1 s doubling up to 15 s). 1 keeps the reference schedule.
   */
  backoffScale: number
  /** Run every agent with the built-in simulated adapter. */
  simulate: boolean
  /** The `process` adapter's command line (shell syntax); null: none. */
  agentCommand: string | null
  /** Executables of the agent CLIs set by flag, environment or config file (else found on PATH). */
  cliCommands: Record<CliAdapterName, string | null>
  /** Agents' own adapter_config.command and args are used (else ignored). */
  allowAgentCommands: boolean
  /** Names of runner variables every agent gets (besides the allow-list of environment.ts). */
  passEnv: string[]
  /** Runner variables an agent's own settings may name (adapter_config env, secret_env): names or prefixes ending in `*`. */
  allowAgentEnv: string[]
  /** --share-cli-login: agents use the runner user's CLI logins, read-only (cli-login.ts). */
  shareCliLogin: boolean
  /** URL patterns (`*` any characters) an http agent may reach although they are loopback or private. */
  allowHttpAgentUrls: string[]
  /** One kept home per agent under this folder (subscription logins, session resume); null: a new empty one per run. */
  agentHomes: string | null
  promptVia: PromptVia
  successStatus: SuccessStatus
  /** Where agents run when their task's project has no repository. */
  workDir: string
  /** Clones of project repositories and each run's own repository. */
  cacheDir: string
  /** Only runs of these agents (empty: every agent). */
  agentIds: string[]
  /** --no-sandbox: real agents run unconfined, as the runner's user (sandbox.ts). */
  noSandbox: boolean
  /** The bubblewrap executable (--bwrap). */
  bwrap: string
  /** Agents reach the network (--agent-network on|off). */
  agentNetwork: boolean
  /** More folders every agent sees, read-only and writable (--agent-read, --agent-write). */
  agentRead: string[]
  agentWrite: string[]
  /**
   * Never shown to agents: Shopfloor's configuration folder ($XDG_CONFIG_HOME/shopfloor: the
   * runner's settings, the command-line client's sessions), the --config file and the key file.
   */
  configDir: string
  configFile: string | null
  apiKeyFile: string | null
  /** The sandbox agents run in, made at start (null: none); set by the runner. */
  confinement?: import('./sandbox.ts').Sandbox | null
  /** Projects' file:// repositories are cloned (else refused: they read this machine's disk). */
  allowLocalRepositories: boolean
  /** Projects' checks run after their agents (else recorded as skipped). */
  allowChecks: boolean
  /** Versions of the agent CLIs found on this machine, by program; sent with each claim so the server can show them. */
  versions?: Record<string, string>
}

/** Two hours: longer than a coding agent's long run, short enough that a hung one frees its slot the same morning. */
export const RUN_TIMEOUT_DEFAULT_SECONDS = 7200

export class OptionsError extends Error {}

export const RUNNER_USAGE = `Usage: shopfloor runner --url URL --company COMPANY [options]
       shopfloor runner doctor     what this machine can run (agent CLIs, credentials, sandbox, MCP)

Claims the company's queued runs and executes them. Needs a personal API key in
SHOPFLOOR_API_KEY, "api_key" in the config file or --api-key-file; a password session is refused.
Agents run in a bubblewrap sandbox (docs/sandbox.md).

  --url URL                 server address (SHOPFLOOR_URL)
  --company COMPANY         company to work for: id, name or task prefix (SHOPFLOOR_COMPANY)
  --config FILE             JSON file with url, api_key, company and any option below
                            (default $XDG_CONFIG_HOME/shopfloor/runner.json)
  --api-key-file FILE       read the API key from FILE
  --runner-id ID            name reported with claims (default <user>@<host>; give each
                            runner on one machine its own)
  --concurrency N           runs at the same time (default 2)
  --poll-seconds N          safety-net claim poll, at least 5 (default 30)
  --heartbeat-seconds N     lease heartbeat (default 30)
  --grace-seconds N         on SIGTERM, wait this long for runs to finish (default 60)
  --flush-seconds N, --flush-chars N
                            transcript batches (default every 2 s or at 4096 characters)
  --kill-after-seconds N    between the terminate signal and the kill of an agent (default 5)
  --run-timeout-seconds N   a run still going after N seconds is stopped and fails saying so
                            (default 7200; 0: no limit)
  --backoff-scale F         multiplies the waits between attempts to reach the server
                            (API retries, stream reconnection, final report; default 1)
  --simulate                run every agent with the simulated adapter
  --agent-command CMD       command line of the process adapter (SHOPFLOOR_AGENT_COMMAND)
  --prompt-via stdin|arg    process adapter: the prompt on stdin (default) or as the last argument
  --agent-cli-N-command PATH
                            executable of agent_cli_N, N = 1..5 (SHOPFLOOR_AGENT_CLI_N_COMMAND;
                            default claude, codex, gemini, opencode, cursor-agent found on PATH)
  --allow-agent-commands    use agents' own adapter_config command and args
  --pass-env NAME           a runner variable every agent gets (repeatable; SHOPFLOOR_PASS_ENV)
  --allow-agent-env NAME    a runner variable agents' own settings may name (adapter_config env,
                            secret_env); NAME or PREFIX* (repeatable; SHOPFLOOR_ALLOW_AGENT_ENV)
  --share-cli-login         agents use this user's own CLI logins (Claude Code, Codex, Gemini CLI,
                            OpenCode), read-only: subscriptions without API keys
  --allow-http-agent-url PATTERN
                            an http agent URL that may be loopback or private, * for any
                            characters, e.g. http://127.0.0.1:8080/* (repeatable;
                            SHOPFLOOR_ALLOW_HTTP_AGENT_URL)
  --agent-homes DIR         keep one home per agent under DIR (logins, session resume)
                            instead of a new empty one per run (SHOPFLOOR_AGENT_HOMES)
  --success-status S        task status after a successful run: in_review (default) or done
  --workdir DIR             where agents run without a project repository (default: here)
  --cache-dir DIR           repository clones, each run's repository and the provider
                            cool-downs kept across restarts (default $XDG_CACHE_HOME/shopfloor/runner)
  --agent AGENT             only runs of this agent, id or name (repeatable)
  --no-sandbox              run agents without a sandbox, as this user, seeing all it sees
  --agent-network on|off    agents reach the network (default on; off: nothing, not even the API)
  --agent-read DIR, --agent-write DIR
                            a folder every agent sees read-only, or may write (repeatable)
  --bwrap PATH              the bubblewrap executable (default bwrap on PATH)
  --allow-local-repositories
                            clone projects' file:// repositories (they read this machine's disk)
  --allow-checks            run projects' checks (their commands) after each agent's work
`

const FLAGS = {
  url: { type: 'string' },
  company: { type: 'string' },
  config: { type: 'string' },
  'api-key-file': { type: 'string' },
  'runner-id': { type: 'string' },
  concurrency: { type: 'string' },
  'poll-seconds': { type: 'string' },
  'heartbeat-seconds': { type: 'string' },
  'flush-seconds': { type: 'string' },
  'flush-chars': { type: 'string' },
  'grace-seconds': { type: 'string' },
  'kill-after-seconds': { type: 'string' },
  'run-timeout-seconds': { type: 'string' },
  'backoff-scale': { type: 'string' },
  simulate: { type: 'boolean' },
  'agent-command': { type: 'string' },
  'agent-cli-1-command': { type: 'string' },
  'agent-cli-2-command': { type: 'string' },
  'agent-cli-3-command': { type: 'string' },
  'agent-cli-4-command': { type: 'string' },
  'agent-cli-5-command': { type: 'string' },
  'allow-agent-commands': { type: 'boolean' },
  'pass-env': { type: 'string', multiple: true },
  'allow-agent-env': { type: 'string', multiple: true },
  'allow-http-agent-url': { type: 'string', multiple: true },
  'agent-homes': { type: 'string' },
  'share-cli-login': { type: 'boolean' },
  'prompt-via': { type: 'string' },
  'success-status': { type: 'string' },
  workdir: { type: 'string' },
  'cache-dir': { type: 'string' },
  agent: { type: 'string', multiple: true },
  'no-sandbox': { type: 'boolean' },
  'agent-network': { type: 'string' },
  'agent-read': { type: 'string', multiple: true },
  'agent-write': { type: 'string', multiple: true },
  bwrap: { type: 'string' },
  'allow-local-repositories': { type: 'boolean' },
  'allow-checks': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

/**
 * Parses flags, environment and config file; throws OptionsError with a message for people.
 * `handedKey` is the key the runner's first process read and handed on (main.ts): the process
 * that runs agents has none in its environment.
 */
export function parseRunnerOptions(args: string[], env: NodeJS.ProcessEnv = process.env, handedKey?: string): RunnerOptions | 'help' {
  let parsed
  try {
    parsed = parseArgs({ args, options: FLAGS, strict: true, allowPositionals: false }).values
  } catch (err: any) {
    throw new OptionsError(err.message)
  }
  if (parsed.help) return 'help'
  const configPath = parsed.config ?? defaultConfigPath(env)
  const file = readConfigFile(configPath, parsed.config !== undefined)
  /** A setting's value from each source, in order: flag, environment, config file. */
  const sources = (flag: keyof typeof FLAGS, envName: string | null, fileKey: string): (string | undefined)[] => {
    const fromFlag = parsed[flag]
    const fromFile = file[fileKey]
    return [
      typeof fromFlag === 'string' ? fromFlag : undefined,
      (envName ? env[envName]?.trim() : undefined) || undefined,
      fromFile === undefined || fromFile === null ? undefined : String(fromFile),
    ]
  }
  const pick = (flag: keyof typeof FLAGS, envName: string | null, fileKey: string): string | undefined =>
    sources(flag, envName, fileKey).find((v) => v !== undefined)
  const number = (flag: keyof typeof FLAGS, fileKey: string, fallback: number, min: number): number => {
    const raw = pick(flag, null, fileKey)
    if (raw === undefined) return fallback
    const value = Number(raw)
    if (!Number.isFinite(value) || value < min) throw new OptionsError(`--${flag} must be a number of at least ${min}, got "${raw}"`)
    return value
  }

  const url = pick('url', 'SHOPFLOOR_URL', 'url')
  if (!url) throw new OptionsError('no server address: use --url or SHOPFLOOR_URL')
  const companyId = pick('company', 'SHOPFLOOR_COMPANY', 'company')
  if (!companyId) throw new OptionsError('no company: use --company or SHOPFLOOR_COMPANY')
  const apiKeyFile = pick('api-key-file', null, 'api_key_file') ?? null
  const apiKey = handedKey ?? (apiKeyFile ? readKeyFile(apiKeyFile) : env.SHOPFLOOR_API_KEY?.trim() || (typeof file.api_key === 'string' ? file.api_key.trim() : ''))
  if (!apiKey) throw new OptionsError('no API key: set SHOPFLOOR_API_KEY (or api_key in the config file, or --api-key-file); the runner does not use password sessions')
  if (!/^svc_(live|test)_/.test(apiKey)) {
    throw new OptionsError('SHOPFLOOR_API_KEY is not an API key (svc_live_...); the runner refuses password sessions and access tokens')
  }

  const promptVia = pick('prompt-via', 'SHOPFLOOR_PROMPT_VIA', 'prompt_via') ?? 'stdin'
  if (promptVia !== 'stdin' && promptVia !== 'arg') throw new OptionsError('--prompt-via must be stdin or arg')
  const successStatus = pick('success-status', 'SHOPFLOOR_SUCCESS_STATUS', 'success_status') ?? 'in_review'
  if (successStatus !== 'in_review' && successStatus !== 'done') throw new OptionsError('--success-status must be in_review or done')

  const cliCommands = Object.fromEntries(CLI_ADAPTERS.map((name) => {
    const n = name.slice(-1)
    return [name, pick(`agent-cli-${n}-command` as keyof typeof FLAGS, `SHOPFLOOR_AGENT_CLI_${n}_COMMAND`, `${name}_command`) ?? null]
  })) as Record<CliAdapterName, string | null>
  const agentNetwork = pick('agent-network', 'SHOPFLOOR_AGENT_NETWORK', 'agent_network') ?? 'on'
  if (agentNetwork !== 'on' && agentNetwork !== 'off') throw new OptionsError('--agent-network must be on or off')
  const folders = (flag: 'agent-read' | 'agent-write', key: string) =>
    (parsed[flag] ?? (Array.isArray(file[key]) ? (file[key] as unknown[]).map(String) : [])).map((dir) => resolve(dir))
  const names = (flag: 'pass-env' | 'allow-agent-env' | 'allow-http-agent-url', variable: string, key: string, shape: RegExp, what: string) => {
    const list = (parsed[flag] ?? (env[variable] ? env[variable].split(',') : Array.isArray(file[key]) ? (file[key] as unknown[]).map(String) : [])).map((n) => n.trim())
    for (const name of list) if (!shape.test(name)) throw new OptionsError(`--${flag} takes ${what}, got "${name}"`)
    return list
  }
  const passEnv = names('pass-env', 'SHOPFLOOR_PASS_ENV', 'pass_env', /^[A-Za-z_][A-Za-z0-9_]*$/, 'names of variables')
  const allowAgentEnv = names('allow-agent-env', 'SHOPFLOOR_ALLOW_AGENT_ENV', 'allow_agent_env', /^([A-Za-z_][A-Za-z0-9_]*\*?|\*)$/, 'names of variables or prefixes ending in *')
  const allowHttpAgentUrls = names('allow-http-agent-url', 'SHOPFLOOR_ALLOW_HTTP_AGENT_URL', 'allow_http_agent_url', /^https?:\/\/\S+$/i, 'URL patterns starting http:// or https://')
  const agentIds = parsed.agent ?? (Array.isArray(file.agents) ? file.agents.map(String) : [])
  return {
    url: url.replace(/\/+$/, ''),
    apiKey,
    companyId,
    runnerId: pick('runner-id', 'SHOPFLOOR_RUNNER_ID', 'runner_id') ?? defaultRunnerId(),
    concurrency: Math.floor(number('concurrency', 'concurrency', 2, 1)),
    pollSeconds: number('poll-seconds', 'poll_seconds', 30, 5),
    heartbeatSeconds: number('heartbeat-seconds', 'heartbeat_seconds', 30, 0.1),
    flushSeconds: number('flush-seconds', 'flush_seconds', 2, 0.1),
    flushChars: Math.floor(number('flush-chars', 'flush_chars', 4096, 1)),
    graceSeconds: number('grace-seconds', 'grace_seconds', 60, 0),
    killAfterSeconds: number('kill-after-seconds', 'kill_after_seconds', 5, 0),
    runTimeoutSeconds: number('run-timeout-seconds', 'run_timeout_seconds', RUN_TIMEOUT_DEFAULT_SECONDS, 0),
    backoffScale: number('backoff-scale', 'backoff_scale', 1, 0.01),
    simulate: parsed.simulate ?? file.simulate === true,
    agentCommand: pick('agent-command', 'SHOPFLOOR_AGENT_COMMAND', 'agent_command') ?? null,
    cliCommands,
    allowAgentCommands: parsed['allow-agent-commands'] ?? file.allow_agent_commands === true,
    passEnv,
    allowAgentEnv,
    allowHttpAgentUrls,
    agentHomes: pick('agent-homes', 'SHOPFLOOR_AGENT_HOMES', 'agent_homes') ?? null,
    shareCliLogin: parsed['share-cli-login'] ?? (env.SHOPFLOOR_SHARE_CLI_LOGIN === '1' || file.share_cli_login === true),
    promptVia,
    successStatus,
    workDir: pick('workdir', null, 'workdir') ?? process.cwd(),
    cacheDir: pick('cache-dir', null, 'cache_dir') ?? defaultCacheDir(env),
    agentIds,
    noSandbox: parsed['no-sandbox'] ?? file.no_sandbox === true,
    bwrap: pick('bwrap', null, 'bwrap') ?? 'bwrap',
    agentNetwork: agentNetwork === 'on',
    agentRead: folders('agent-read', 'agent_read'),
    agentWrite: folders('agent-write', 'agent_write'),
    configDir: resolve(dirname(defaultConfigPath(env))),
    configFile: parsed.config === undefined ? null : resolve(parsed.config),
    apiKeyFile: apiKeyFile ? resolve(apiKeyFile) : null,
    allowLocalRepositories: parsed['allow-local-repositories'] ?? file.allow_local_repositories === true,
    allowChecks: parsed['allow-checks'] ?? file.allow_checks === true,
  }
}

/** The runner's cache folder when none is given: $XDG_CACHE_HOME/shopfloor/runner. */
export function defaultCacheDir(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'shopfloor', 'runner')
}

function readKeyFile(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim()
  } catch (err: any) {
    throw new OptionsError(`cannot read the API key file ${path}: ${err.message}`)
  }
}

function defaultConfigPath(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'shopfloor', 'runner.json')
}

function readConfigFile(path: string, required: boolean): Record<string, unknown> {
  if (!existsSync(path)) {
    if (required) throw new OptionsError(`config file ${path} does not exist`)
    return {}
  }
  try {
    const data = JSON.parse(readFileSync(path, 'utf8'))
    if (data && typeof data === 'object' && !Array.isArray(data)) return data
  } catch (err: any) {
    throw new OptionsError(`cannot read ${path}: ${err.message}`)
  }
  throw new OptionsError(`${path} must hold a JSON object`)
}

/**
 * A name people recognise, the same on every start (so a restart is the same runner coming
 * back, not a new line on the runners page): "dana@laptop".
 */
export function defaultRunnerId(): string {
  let user = ''
  try {
    user = userInfo().username
  } catch {
    // No entry for this uid (a container): the host alone.
  }
  return (user ? `${user}@${hostname()}` : hostname()).slice(0, 100)
}
