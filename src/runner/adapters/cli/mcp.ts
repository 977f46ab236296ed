// The Shopfloor MCP server (`shopfloor mcp`, stdio) as each agent CLI is told about it. It reads
// the run's SHOPFLOOR_* variables; every CLI is given them by reference (${VAR}, {env:VAR},
// env_vars...) rather than by value, so no key is written to a file or shown in `ps`.
import { fileURLToPath } from 'node:url'
import { readHomeFile, writeHomeFile } from '../../home-files.ts'

export const MCP_SERVER_NAME = 'shopfloor'

/** The variables the MCP server reads. */
export const MCP_ENV = ['SHOPFLOOR_API_URL', 'SHOPFLOOR_API_KEY', 'SHOPFLOOR_RUN_ID', 'SHOPFLOOR_COMPANY_ID', 'SHOPFLOOR_AGENT_ID', 'SHOPFLOOR_TASK_KEY']

const BIN = fileURLToPath(new URL('../../../../bin/shopfloor.js', import.meta.url))

/** `node <repo>/bin/shopfloor.js mcp`. */
export function mcpServer(): { command: string; args: string[] } {
  return { command: process.execPath, args: [BIN, 'mcp'] }
}

/** `{NAME: <reference to NAME>}` for each variable, in a CLI's own reference syntax. */
export function envReferences(reference: (name: string) => string): Record<string, string> {
  return Object.fromEntries(MCP_ENV.map((name) => [name, reference(name)]))
}

/**
 * Sets keys of a JSON settings file of the run's home (`relative` to it), keeping whatever else
 * it holds (a kept agent home may have settings of its own). Written readable by its owner only.
 * A link the agent left in its place is replaced, never followed (home-files.ts).
 */
export function mergeJsonFile(home: string, relative: string, change: (data: Record<string, any>) => void): void {
  let data: Record<string, any> = {}
  const text = readHomeFile(home, relative)
  if (text !== null) {
    try {
      const parsed = JSON.parse(text)
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) data = parsed
    } catch {
      // an unreadable file is replaced
    }
  }
  change(data)
  writeHomeFile(home, relative, `${JSON.stringify(data, null, 2)}\n`)
}
