// An agent's `adapter_config`: per-adapter settings of the reference runner (API-DECISIONS.md,
// "Agent settings beyond the spec"). The schema documents every key; which keys an adapter
// takes, and the checks no schema can say (names of variables, the http URL), are the pure
// rules below, shared by the API (422 on hire and PATCH) and the runner.
import { type Static, Type } from 'typebox'

/** The adapters of the reference runner, with the product each one drives. */
export const ADAPTER_PRODUCTS = {
  agent_cli_1: 'Claude Code',
  agent_cli_2: 'Codex',
  agent_cli_3: 'Gemini CLI',
  agent_cli_4: 'OpenCode',
  agent_cli_5: 'Cursor Agent',
  http: 'HTTP endpoint',
  process: 'Any command',
  simulated: 'Simulated',
} as const
export type AdapterName = keyof typeof ADAPTER_PRODUCTS

const VARIABLE_NAME = '^[A-Za-z_][A-Za-z0-9_]*$'

export const AdapterConfig = Type.Object(
  {
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'model name passed to the CLI (also what its usage is priced by)' })),
    command: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'executable (or, for `process`, command line) to run; used only by runners started with --allow-agent-commands' })),
    args: Type.Optional(Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 100, description: 'extra arguments; used only by runners started with --allow-agent-commands' })),
    env: Type.Optional(Type.Array(Type.String({ pattern: VARIABLE_NAME, maxLength: 200 }), { maxItems: 100, description: 'names of runner environment variables passed to the agent' })),
    max_turns: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'turn limit, where the CLI has one' })),
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: '`http`: the endpoint the run is POSTed to' })),
    timeout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 86400, description: '`http`: how long the answer may take' })),
    secret_env: Type.Optional(Type.String({ pattern: VARIABLE_NAME, maxLength: 200, description: "`http`: name of the runner's environment variable holding the bearer secret" })),
    fallback: Type.Optional(Type.Array(
      Type.Object({
        model: Type.String({ minLength: 1, maxLength: 200 }),
        adapter: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
      }, { additionalProperties: false }),
      { maxItems: 5, description: 'CLI agents: models tried in order when the primary is overloaded or over a limit; `adapter`, if given, must be the agent\'s own (a run does not switch CLIs)' },
    )),
  },
  { description: 'per-adapter settings; keys the adapter does not take are refused (422)' },
)
export type AdapterConfig = Static<typeof AdapterConfig>

const CLI = ['model', 'command', 'args', 'env', 'fallback'] as const

/** The keys each adapter takes. An adapter this runner does not know takes every key. */
export const ADAPTER_CONFIG_KEYS: Record<AdapterName, readonly (keyof AdapterConfig)[]> = {
  agent_cli_1: [...CLI, 'max_turns'],
  agent_cli_2: CLI,
  agent_cli_3: [...CLI, 'max_turns'],
  agent_cli_4: CLI,
  agent_cli_5: CLI,
  http: ['url', 'timeout_seconds', 'secret_env', 'model'],
  process: ['command', 'args', 'env', 'model'],
  simulated: [],
}

export interface AdapterConfigProblem {
  /** Dotted path below the body, e.g. `adapter_config.max_turns`. */
  field: string
  message: string
}

/**
 * The first problem of `config` for `adapter`, or null. The schema has checked the types of
 * the keys it knows already; this adds what depends on the adapter.
 */
export function adapterConfigProblem(adapter: string | null, config: Record<string, unknown>): AdapterConfigProblem | null {
  const allowed = adapter && adapter in ADAPTER_CONFIG_KEYS
    ? (ADAPTER_CONFIG_KEYS[adapter as AdapterName] as readonly string[])
    : Object.keys(AdapterConfig.properties)
  for (const key of Object.keys(config)) {
    if (!allowed.includes(key)) {
      const takes = allowed.length ? `it takes ${allowed.join(', ')}` : 'it takes no settings'
      return { field: `adapter_config.${key}`, message: `Not a setting of adapter ${adapter ?? '(none)'}: ${takes}` }
    }
  }
  if (Array.isArray(config.fallback)) {
    // A fallback runs in the same run, on the CLI the run was started with: the run's credential,
    // home, shared login, skills and sandbox are set up for that CLI when it starts, and the runner
    // that claimed it may not even have another CLI. So a fallback may name the agent's own
    // adapter (or none), not another one: refused here rather than left out at run time.
    const at = config.fallback.findIndex((f: any) => f?.adapter !== undefined && f.adapter !== adapter)
    if (at >= 0) {
      const other = String((config.fallback[at] as { adapter: unknown }).adapter)
      return {
        field: `adapter_config.fallback.${at}.adapter`,
        message: `A fallback model runs on the agent's own adapter (${adapter ?? 'none'}), not on ${other}: a run cannot switch to another CLI. ` +
          'Leave adapter out, or hire another agent on that CLI',
      }
    }
  }
  if (typeof config.url === 'string' && !isHttpUrl(config.url)) {
    return { field: 'adapter_config.url', message: 'Input should be an http or https URL' }
  }
  return null
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:'
  } catch {
    return false
  }
}
