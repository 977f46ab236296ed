// `shopfloor runner doctor`: what this machine's runner could run, before it is started. Each agent
// CLI found (its version and whether the adapter supports it), the credential each would use, the
// sandbox tool, the provider credentials the runners of this machine rest until a limit's reset
// (cooldowns.ts keeps them in the cache folder), and a self-check of the MCP wiring: the Shopfloor
// MCP server started as the CLIs are told to start it, asked for its tools, within ten seconds.
// Exits 1 when no agent CLI can run or the MCP server does not answer.
import { parseArgs } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { keptCooldowns } from './cooldowns.ts'
import { CLI_ADAPTERS, type CliAdapterName, defaultCacheDir } from './options.ts'
import { detectClis } from './adapters/index.ts'
import { findExecutable } from './adapters/detect.ts'
import { mcpServer } from './adapters/cli/mcp.ts'

export const DOCTOR_USAGE = `Usage: shopfloor runner doctor [--agent-cli-N-command PATH] [--agent-homes DIR] [--cache-dir DIR]

Says which agent CLIs this runner would run (version, supported or not, the credential each would
use), whether the sandbox tool is there, which provider credentials the runners of this machine
rest until a limit's reset (and why), and checks that the Shopfloor MCP server starts and offers
its tools (ten seconds at most). Takes the runner's flags and variables for the CLIs'
executables, the agent homes and the cache folder; needs no server or API key.
`

const MCP_CHECK_MS = 10_000

export async function runDoctor(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let values
  try {
    values = parseArgs({
      args,
      options: {
        ...Object.fromEntries(CLI_ADAPTERS.map((n) => [`agent-cli-${n.slice(-1)}-command`, { type: 'string' as const }])),
        'agent-homes': { type: 'string' },
        'cache-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values as Record<string, string | boolean | undefined>
  } catch (err: any) {
    process.stderr.write(`shopfloor runner doctor: ${err.message}\n\n${DOCTOR_USAGE}`)
    return 2
  }
  if (values.help) {
    process.stdout.write(DOCTOR_USAGE)
    return 0
  }
  const cliCommands = Object.fromEntries(CLI_ADAPTERS.map((name) => {
    const n = name.slice(-1)
    return [name, (values[`agent-cli-${n}-command`] as string | undefined) ?? (env[`SHOPFLOOR_AGENT_CLI_${n}_COMMAND`]?.trim() || null)]
  })) as Record<CliAdapterName, string | null>
  const agentHomes = (values['agent-homes'] as string | undefined) ?? (env.SHOPFLOOR_AGENT_HOMES?.trim() || null)

  const lines: string[] = ['Agent CLIs:']
  let runnable = 0
  for (const { adapter, dialect, command, cli, check } of await detectClis({ cliCommands })) {
    const name = `${dialect.product} (${adapter})`
    if (!cli) {
      lines.push(`  ${name}: not found (looked for ${command}${command.includes('/') ? '' : ' on PATH'})`)
      continue
    }
    if (check && !check.supported) {
      lines.push(`  ${name}: ${cli.version ?? 'version unknown'} at ${cli.path}: NOT SUPPORTED: ${check.problem}`)
      continue
    }
    runnable++
    const range = check?.problem ? `run, but ${check.problem}`
      : dialect.supported ? `supported (${dialect.supported.from} or newer, below ${dialect.supported.below})` : 'no supported range known'
    lines.push(`  ${name}: ${cli.version ?? 'version unknown'} at ${cli.path}: ${range}; credential: ${credentialOf(dialect.credentials, env, agentHomes)}`)
  }

  const bwrap = findExecutable('bwrap', env.PATH ?? '')
  lines.push('', `Sandbox: ${bwrap ? `bubblewrap at ${bwrap}` : 'bubblewrap (bwrap) not found: install it (Debian: apt-get install bubblewrap), or start the runner with --no-sandbox'}`)

  const cacheDir = (values['cache-dir'] as string | undefined) ?? defaultCacheDir(env)
  lines.push('', ...cooldownLines(cacheDir))

  const mcp = await checkMcp(env)
  lines.push('', `MCP self-check: ${mcp.ok ? 'passed' : 'FAILED'}: ${mcp.detail}`)
  lines.push('', runnable ? `This runner can run ${runnable} agent CLI${runnable === 1 ? '' : 's'}.` : 'This runner can run no agent CLI (only the http, process and simulated adapters).')
  process.stdout.write(`${lines.join('\n')}\n`)
  return runnable > 0 && mcp.ok ? 0 : 1
}

/** The rests in force of every runner that keeps them under `cacheDir`: provider, until when (and in how long), why. */
function cooldownLines(cacheDir: string): string[] {
  const now = Date.now()
  const runners = keptCooldowns(cacheDir, now)
  if (!runners.length) return ['Cool-downs: none (no provider credential is resting after a limit)']
  const lines = ['Cool-downs (no runs for these provider credentials until the reset):']
  for (const { runnerId, cooldowns } of runners) {
    for (const c of cooldowns) {
      const minutes = Math.ceil((Date.parse(c.until) - now) / 60_000)
      lines.push(`  ${c.provider} (runner ${runnerId}): until ${c.until} (in ${minutes} min): ${c.reason}`)
    }
  }
  return lines
}

/** Which credential the CLI would be given: the first variable set, else a login in the agent homes. */
function credentialOf(names: readonly string[], env: NodeJS.ProcessEnv, agentHomes: string | null): string {
  const set = names.find((n) => env[n]?.trim())
  if (set) return `${set} (from this environment)`
  if (agentHomes) return `a login of the CLI in each agent's home under ${agentHomes} (none of ${names.join(', ')} is set)`
  return `none: set ${names.join(' or ')}, or log the CLI in as this user and start the runner with --share-cli-login, or use --agent-homes and log it in there`
}

/** Starts the MCP server as the CLIs are told to, and lists its tools. */
async function checkMcp(env: NodeJS.ProcessEnv): Promise<{ ok: boolean; detail: string }> {
  const { command, args } = mcpServer()
  const started = Date.now()
  const client = new Client({ name: 'shopfloor-runner-doctor', version: '1.0.0' })
  // Its variables as a run gives them; the address answers nothing: listing tools needs no server.
  const transport = new StdioClientTransport({
    command, args, stderr: 'pipe',
    env: { PATH: env.PATH ?? '', HOME: env.HOME ?? '', SHOPFLOOR_API_URL: 'http://127.0.0.1:9', SHOPFLOOR_API_KEY: 'doctor-self-check' },
  })
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${MCP_CHECK_MS / 1000} s`)), MCP_CHECK_MS)
  })
  try {
    await Promise.race([client.connect(transport), timeout])
    const { tools } = await Promise.race([client.listTools(), timeout])
    const names = tools.map((t) => t.name)
    const seconds = ((Date.now() - started) / 1000).toFixed(1)
    if (!names.includes('get_context')) return { ok: false, detail: `the MCP server answered in ${seconds} s without its tools (${names.join(', ') || 'none'})` }
    return { ok: true, detail: `${[command, ...args].join(' ')} offered ${names.length} tools (${names.join(', ')}) in ${seconds} s` }
  } catch (err: any) {
    return { ok: false, detail: `${[command, ...args].join(' ')}: ${err.message}` }
  } finally {
    clearTimeout(timer)
    await client.close().catch(() => {})
  }
}
