/**
 * `npx tsx examples/airline/mcp-server.ts [user_id]`: the airline tools as an MCP server over stdio, guarded by the
 * airline policy. Point any MCP client at it (an inspector, a desktop assistant).
 *
 * Every call is proved against `policy.rules` before it runs; a refused call answers with an `isError` result that
 * tells the model what to do. A write the customer must confirm (a booking, a cancellation, a change) is put to the
 * user through MCP elicitation when the client supports it: a form naming the exact call, approve or decline. A
 * client without elicitation gets the refusal text instead, and the model asks in the chat and calls
 * `record_confirmation`, which this server also serves. The customer is `user_id` (default `emma_smith_9363`).
 * It imports `panoptes/mcp` as your project would (this repository's tsconfig `paths` point it at the sources).
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createGuardedMcpServer, type McpToolHandler } from 'panoptes/mcp';
import { createAirlineSession } from './sentinel.js';

const userId = process.argv[2] ?? 'emma_smith_9363';
const { tools, sentinel } = await createAirlineSession({ userId });
const upstream = Object.fromEntries(
  Object.values(tools).map((tool): [string, McpToolHandler] => [tool.name, { description: tool.description, inputSchema: tool.parameters as McpToolHandler['inputSchema'], execute: (args) => tool.execute(args) }]),
);
// stdout is the protocol's: Panoptes' own warnings go to stderr (console.warn), as stdio servers must.
const server = createGuardedMcpServer({ upstream, sentinel, approvals: true, serverInfo: { name: 'airline', version: '1.0.0' } });
await server.connect(new StdioServerTransport());
