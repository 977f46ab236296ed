/**
 * The constant version string `/health`, the service description and the OpenAPI document report
 * (SPEC.md: informational, the same in every release). A module of its own so that a client such
 * as the MCP server can name it without loading the HTTP layer.
 */
export const SERVICE_VERSION = '2.1.0'
