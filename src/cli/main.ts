// `shopfloor <command>`: one executable for every process type and for people.
//   serve       the API server (with the in-process scheduler unless SCHEDULER=off)
//   scheduler   the scheduler on its own
//   runner      a runner that claims and executes agents' runs
//   mcp         the MCP server (stdio) giving an agent tools for the control plane
//   admin ...   operator commands acting on the database directly
//   anything else: the command-line client of the API

const USAGE = `Usage: shopfloor <command> [options]

Processes:
  serve                 start the API server (npm start)
  scheduler             run the scheduler on its own
  runner                claim and execute agents' runs
  mcp                   MCP server on stdio for an agent (SHOPFLOOR_API_URL, SHOPFLOOR_API_KEY)

Operators (act on the database of DATABASE_URL / DATA_DIR):
  admin users deactivate|activate EMAIL
  admin members add|remove|role COMPANY_ID EMAIL [owner|admin|member]

Client: run "shopfloor help" for the client commands.
`

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv
  switch (command) {
    case 'serve': {
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
    case '-h':
      process.stdout.write(USAGE)
      return
    default: {
      const { runClient } = await import('./client-main.ts')
      process.exitCode = await runClient(argv)
    }
  }
}
