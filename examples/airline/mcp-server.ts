/**
 * `npx tsx examples/airline/mcp-server.ts [user_id]`: the airline tools as an MCP server over stdio, guarded by the
 * airline policy. Point any MCP client at it (an inspector, a desktop assistant).
 *
 * Every call is proved against `policy.rules` before it runs; a refused call answers with an `isError` result that
 * tells the model what to do. A write the customer must confirm (a booking, a cancellation, a change) is put to the
 * user through MCP elicitation when the client supports it: a form naming the exact call, approve or decline. The
 * confirmations are grounded in what the user saw, and an MCP server sees no conversation: a client without
 * elicitation gets the refusal text, and the model's own `record_confirmation` is not enough. For the same reason the
 * insurance duty (`requires said(offered_insurance)`) is assumed done here: it is the client's to check. The
 * customer is `user_id` (default `emma_smith_9363`).
 * It imports `panoptes/mcp` as your project would (this repository's tsconfig `paths` point it at the sources).
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createGuardedMcpServer, type McpToolHandler } from 'panoptes/mcp';
import { createAirlineSession } from './sentinel.js';

const userId = process.argv[2] ?? 'emma_smith_9363';
// An MCP server sees no words: the duty to offer insurance is left to the client (see above).
const { tools, sentinel } = await createAirlineSession({ userId, said: ['offered_insurance'] });
const upstream = Object.fromEntries(
  Object.values(tools).map((tool): [string, McpToolHandler] => [tool.name, { description: tool.description, inputSchema: tool.parameters as McpToolHandler['inputSchema'], execute: (args) => tool.execute(args) }]),
);
// stdout is the protocol's: Panoptes' own warnings go to stderr (console.warn), as stdio servers must.
const server = createGuardedMcpServer({ upstream, sentinel, approvals: true, serverInfo: { name: 'airline', version: '1.0.0' } });
await server.connect(new StdioServerTransport());
