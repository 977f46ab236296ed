// The tool list (`tools/list`) is paid for on every model request of a run: each CLI hands the
// model every tool's name, description and input schema each time it asks. The schemas the MCP
// SDK derives from the tools' zod schemas carry what the model does not use: a `$schema` line
// per tool and, beside each id's `"format": "uuid"`, the 100-token regular expression of a UUID.
// Both are left out of the list as it is sent (28% of its tokens); the tools still check
// their arguments with the full zod schemas.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'

/** The transport, with every tool list it sends slimmed (slimSchema). */
export function slimToolLists<T extends Transport>(transport: T): T {
  const send = transport.send.bind(transport)
  transport.send = (message, options) => send(slimToolList(message), options)
  return transport
}

function slimToolList(message: JSONRPCMessage): JSONRPCMessage {
  const result = 'result' in message ? (message.result as { tools?: unknown }) : null
  if (!result || !Array.isArray(result.tools)) return message
  const tools = result.tools.map((tool: { inputSchema?: unknown }) => (tool.inputSchema ? { ...tool, inputSchema: slimSchema(tool.inputSchema) } : tool))
  return { ...message, result: { ...result, tools } } as JSONRPCMessage
}

/** A JSON schema without `$schema`, and without the `pattern` of a string whose `format` already says what it is. */
function slimSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(slimSchema)
  if (!schema || typeof schema !== 'object') return schema
  const node = schema as Record<string, unknown>
  const kept = Object.entries(node).filter(([key]) => key !== '$schema' && !(key === 'pattern' && typeof node.format === 'string'))
  return Object.fromEntries(kept.map(([key, value]) => [key, slimSchema(value)]))
}
