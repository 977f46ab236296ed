// `shopfloor mcp`: an MCP server on standard input and output that gives an agent tools for the
// control plane (src/mcp/tools.ts). It reads SHOPFLOOR_API_URL and SHOPFLOOR_API_KEY, which the
// runner sets to the run's own credential; with a person's API key it also needs
// SHOPFLOOR_COMPANY_ID. Standard output carries the protocol only; messages go to standard error.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { ApiError, ShopfloorClient } from '../client/index.ts'
import { SERVICE_VERSION } from '../contract/version.ts'
import { registerKnowledgeTools } from './knowledge-tools.ts'
import { slimToolLists } from './tool-list.ts'
import { type Identity, registerTools } from './tools.ts'
import { registerWorkTools } from './work-tools.ts'

export async function runMcpServer(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const url = env.SHOPFLOOR_API_URL?.trim() || env.SHOPFLOOR_URL?.trim()
  const key = env.SHOPFLOOR_API_KEY?.trim()
  if (!url || !key) {
    process.stderr.write('shopfloor mcp: set SHOPFLOOR_API_URL and SHOPFLOOR_API_KEY\n')
    process.exitCode = 2
    return
  }
  const client = new ShopfloorClient({ baseUrl: url, credentials: { apiKey: key } })
  const server = new McpServer({ name: 'shopfloor', version: SERVICE_VERSION })
  const identity = memoise(() => resolveIdentity(client, env.SHOPFLOOR_COMPANY_ID?.trim() || null))
  registerTools(server, client, identity)
  registerWorkTools(server, client, identity)
  registerKnowledgeTools(server, client, identity)
  await server.connect(slimToolLists(new StdioServerTransport()))
}

/**
 * The run behind the credential (GET /api/run), asked once. A credential that is not a run's
 * (403) acts in SHOPFLOOR_COMPANY_ID, without run defaults; anything else is the tool's error.
 */
async function resolveIdentity(client: ShopfloorClient, companyId: string | null): Promise<Identity> {
  try {
    const context = await client.runs.current()
    return { companyId: context.company.id, context }
  } catch (err) {
    if (err instanceof ApiError && err.status === 403 && companyId) return { companyId, context: null }
    throw err
  }
}

/** The first successful answer, kept; a failed one is asked again next time. */
function memoise<T>(fn: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | null = null
  return () => {
    pending ??= fn().catch((err) => {
      pending = null
      throw err
    })
    return pending
  }
}
