import type { ToolHandler } from '../../src/index.js';
import { resultData } from './translate.js';
import type { McpToolClient } from './wrap-client.js';

/**
 * The sentinel's data tools, served by an MCP server: each handler calls the tool through `client` and gives the
 * solver the result's data (`structuredContent`, else the text parsed as JSON). An error result blocks the proof
 * with the server's reason. Pass the unwrapped client: data tools are checked by the sentinel's own rules.
 * @example
 * const sentinel = createSentinel({ rulebase, facts, tools: mcpDataTools(client, ['get_booking']) });
 */
export function mcpDataTools(client: McpToolClient, names: readonly string[]): Record<string, ToolHandler> {
  return Object.fromEntries(
    names.map((name): [string, ToolHandler] => [
      name,
      { execute: async (args, { signal }) => resultData(name, await client.callTool({ name, arguments: args }, undefined, { signal })) },
    ]),
  );
}
