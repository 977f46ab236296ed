// The environment an agent process gets: an allow-list, never the runner's whole environment.
// A runner holds secrets of its own (its API key, and on a shared machine DATABASE_URL,
// JWT_SECRET_KEY, SMTP_*, REDIS_URL...); an agent sees only what it needs to work, its CLI's
// credentials, the run's SHOPFLOOR_* variables and the names its operator chose to pass on or
// let agents ask for.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { RunContext } from '../client/index.ts'

/** Variables every agent gets from the runner's environment when they are set. */
export const BASE = ['PATH', 'HOME', 'LANG', 'TERM', 'TZ', 'USER', 'LOGNAME', 'SHELL', 'TMPDIR']

/**
 * Variables an agent's own settings (adapter_config `env` and `secret_env`, which any member of
 * the company may edit) can never name: the runner's own credentials (SHOPFLOOR_API_KEY, the
 * key of the person who runs it, valid in all their companies) and the server's secrets a shared
 * machine may hold. The runner's operator may still pass any of them to agents with --pass-env.
 */
const RUNNER_SECRETS = /^(SHOPFLOOR_.*|DATABASE_URL|TEST_DATABASE_URL|JWT_SECRET_KEY|REDIS_URL|TEST_REDIS_URL|SMTP_.*|METRICS_TOKEN|IDP_.*)$/

/**
 * Why an agent's own settings may not name this runner variable, or null when they may. They
 * may name only what the runner's operator allowed with --allow-agent-env (names, or prefixes
 * ending in `*`): the runner's machine holds more secrets than this list knows of (cloud keys,
 * tokens of other work), and a member of the company is not its operator, as for commands
 * (--allow-agent-commands). The runner's own secrets stay out even when a pattern takes them.
 */
export function refusedForAgent(name: string, allowed: readonly string[]): string | null {
  if (RUNNER_SECRETS.test(name)) return `${name} is the runner's own, never sent or passed on by an agent's settings`
  const allows = (pattern: string) => (pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern)
  return allowed.some(allows) ? null : `${name} is not one this runner lets agents name (its operator may allow it with --allow-agent-env ${name})`
}

/** Locale variables (LC_ALL, LC_CTYPE, ...). */
const LOCALE = /^LC_[A-Z_]+$/

export interface AgentEnvironmentInput {
  /** The runner's own environment. */
  runnerEnv: NodeJS.ProcessEnv
  context: RunContext
  apiUrl: string
  /** The key the agent uses for the API (SHOPFLOOR_API_KEY). */
  apiKey: string
  /** The run's configuration folder (SHOPFLOOR_CONFIG_DIR, XDG_CONFIG_HOME). */
  configDir: string
  /** The agent's HOME: the run's home folder (never the runner's). */
  home: string
  /** The adapter's own credential variables (ANTHROPIC_API_KEY, ...). */
  credentials: readonly string[]
  /** Names passed on by the runner's --pass-env (its operator's choice: any name). */
  passEnv: readonly string[]
  /** Names the agent's adapter_config.env asks for (a member's choice: only what --allow-agent-env allows). */
  agentEnv: readonly string[]
  /** The runner's --allow-agent-env. */
  allowAgentEnv: readonly string[]
}

export function agentEnvironment(input: AgentEnvironmentInput): Record<string, string> {
  const { runnerEnv, context } = input
  const env: Record<string, string> = {}
  const take = (name: string) => {
    const value = runnerEnv[name]
    if (value !== undefined) env[name] = value
  }
  for (const name of BASE) take(name)
  for (const name of Object.keys(runnerEnv)) if (LOCALE.test(name)) take(name)
  for (const name of input.credentials) take(name)
  for (const name of input.passEnv) take(name)
  for (const name of input.agentEnv) if (!refusedForAgent(name, input.allowAgentEnv)) take(name)

  env.HOME = input.home
  // Commits are the agent's own, never in the name (or with the credential helpers) of the
  // runner's user, whose git settings it does not get: a git identity of the agent's, unless its
  // kept home has git settings of its own or the operator passed one on.
  if (!existsSync(join(input.home, '.gitconfig')) && !env.GIT_AUTHOR_NAME && !env.GIT_AUTHOR_EMAIL) {
    const name = context.agent.name.replace(/[<>\n\r]/g, '').trim() || 'Agent'
    const email = `${context.agent.id}@agents.invalid`
    Object.assign(env, { GIT_AUTHOR_NAME: name, GIT_AUTHOR_EMAIL: email, GIT_COMMITTER_NAME: name, GIT_COMMITTER_EMAIL: email })
  }
  // The run's own variables last: nothing passed on may replace them.
  Object.assign(env, {
    SHOPFLOOR_API_URL: input.apiUrl,
    SHOPFLOOR_API_KEY: input.apiKey,
    SHOPFLOOR_RUN_ID: context.run.id,
    SHOPFLOOR_AGENT_ID: context.agent.id,
    SHOPFLOOR_AGENT_NAME: context.agent.name,
    SHOPFLOOR_COMPANY_ID: context.company.id,
    SHOPFLOOR_TASK_KEY: context.task?.key ?? '',
    SHOPFLOOR_CONFIG_DIR: input.configDir,
    XDG_CONFIG_HOME: input.configDir,
  })
  return env
}
