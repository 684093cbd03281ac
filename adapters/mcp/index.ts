/**
 * Panoptes for the Model Context Protocol: guard an MCP client's tool calls with a monitor and a sentinel (a
 * refused call returns an `isError` result and never reaches the server), serve guarded tools from an MCP server
 * that can ask the user to approve a call through elicitation, and serve the sentinel's data tools from an MCP
 * server.
 * @module panoptes/mcp
 */
export { wrapMcpClient, type McpToolClient, type WrapMcpClientOptions } from './wrap-client.js';
export {
  createGuardedMcpServer,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  FACTS_RESOURCE_URI,
  type GuardedMcpServer,
  type GuardedMcpServerOptions,
  type McpMissCause,
  type McpRequestExtra,
} from './guarded-server.js';
export type { McpToolHandler, McpUpstream } from './upstream.js';
export { mcpDataTools } from './data-tools.js';
export { refusalOf, REFUSAL_META_KEY, type McpRefusal } from './translate.js';
