// `shopfloor <command>`: one executable for every process type and for people.
//   serve       the API server (with the in-process scheduler unless SCHEDULER=off)
//   scheduler   the scheduler on its own
//   runner      a runner that claims and executes agents' runs
//   mcp         the MCP server (stdio) giving an agent tools for the control plane
//   admin ...   operator commands acting on the database directly
//   anything else: the command-line client of the API

/** `shopfloor serve --help`: the settings people look for first; docs/deploy.md has them all. */
const SERVE_USAGE = `Usage: shopfloor serve

Starts the API server (and the web app, the webhook delivery worker and, unless SCHEDULER=off,
the scheduler). Settings come from the environment:

  PORT, HOST              where to listen (default 8000 on 127.0.0.1; 0.0.0.0 in a container)
  DATABASE_URL            postgres://... for PostgreSQL; unset: the embedded database in DATA_DIR
  DATA_DIR                the embedded database's folder (default ./data)
  ENVIRONMENT             development, test or production (production needs JWT_SECRET_KEY)
  JWT_SECRET_KEY          the key that signs sessions; the same on every instance
  EVENTS_BACKEND, REDIS_URL
                          redis + redis://... to share live events between instances
  SCHEDULER               off when the scheduler runs as its own process (shopfloor scheduler)
  RUN_LEASE_SECONDS       how long a run lives without a runner's heartbeat (default 300)
  METRICS_TOKEN           bearer token GET /metrics needs (else public)
  LOG_LEVEL               pino level (default info)

Probes: GET /livez (process up), GET /readyz (database ready). See docs/deploy.md and
docs/operations.md for every setting.
`

const MCP_USAGE = `Usage: shopfloor mcp

An MCP server on standard input and output giving an agent tools for the control plane. Needs
SHOPFLOOR_API_URL and SHOPFLOOR_API_KEY (the agent's credential); SHOPFLOOR_COMPANY_ID optional.
`

const wantsHelp = (args: string[]) => args.includes('--help') || args.includes('-h')

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv
  switch (command) {
    case '--version':
    case '-V':
    case 'version': {
      const { SERVICE_VERSION } = await import('../contract/version.ts')
      process.stdout.write(`shopfloor ${SERVICE_VERSION}\n`)
      return
    }
    case 'completion': {
      const { completionScript } = await import('./completion.ts')
      const script = completionScript(rest[0])
      if (!script || rest.length > 1) {
        process.stderr.write('USAGE_ERROR: shopfloor completion bash|zsh\n')
        process.exitCode = 2
        return
      }
      process.stdout.write(script)
      return
    }
    case 'serve': {
      if (wantsHelp(rest) || rest.length) {
        // Anything else on its command line is a mistake: serve takes its settings from the environment.
        ;(rest.length && !wantsHelp(rest) ? process.stderr : process.stdout).write(SERVE_USAGE)
        if (!wantsHelp(rest)) process.exitCode = 2
        return
      }
      const { serveWithScheduler } = await import('../api/serve.ts')
      await serveWithScheduler()
      return
    }
    case 'scheduler': {
      const { runSchedulerProcess } = await import('../scheduler/main.ts')
      await runSchedulerProcess(rest)
      return
    }
    case 'runner': {
      const { runRunnerProcess } = await import('../runner/main.ts')
      await runRunnerProcess(rest)
      return
    }
    case 'mcp': {
      if (rest.length) {
        ;(wantsHelp(rest) ? process.stdout : process.stderr).write(MCP_USAGE)
        if (!wantsHelp(rest)) process.exitCode = 2
        return
      }
      const { runMcpServer } = await import('../mcp/main.ts')
      await runMcpServer()
      return
    }
    case 'admin': {
      const { runAdmin } = await import('./admin.ts')
      process.exitCode = await runAdmin(rest)
      return
    }
    case undefined:
    case '--help':
    case '-h': {
      const { mainHelp } = await import('./client/help.ts')
      process.stdout.write(mainHelp())
      return
    }
    default: {
      const { runClient } = await import('./client-main.ts')
      process.exitCode = await runClient(argv)
    }
  }
}
