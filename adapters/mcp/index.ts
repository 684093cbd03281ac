/**
 * Panoptes for the Model Context Protocol: guard an MCP client's tool calls with a monitor and a sentinel (a
 * refused call returns an `isError` result and never reaches the server), and serve the sentinel's data tools
 * from an MCP server.
 * @module panoptes/mcp
 */
export { wrapMcpClient, type McpToolClient, type WrapMcpClientOptions } from './wrap-client.js';
export { mcpDataTools } from './data-tools.js';
export { refusalOf, REFUSAL_META_KEY, type McpRefusal } from './translate.js';
