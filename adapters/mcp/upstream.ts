/**
 * Where a guarding MCP server's tools come from: another MCP server (through a connected client), or tool handlers
 * written in the app. Both become one shape: list the tools, call one.
 * @module
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolRequestParams, CallToolResult, ListToolsResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { InvalidOptionError } from '../../src/index.js';

/** A tool the app serves itself through `createGuardedMcpServer`. */
export interface McpToolHandler {
  /** What the model reads about the tool. */
  description?: string;
  /** JSON Schema of the arguments. @default { type: 'object' } */
  inputSchema?: Tool['inputSchema'];
  /**
   * Runs the tool. A string is sent as the result's text, a `CallToolResult` (an object with `content`) as it is,
   * anything else as JSON text; a throw becomes an `isError` result with its message.
   */
  execute(args: Record<string, unknown>, options: { signal: AbortSignal }): unknown;
}

/** The tools a guarding server exposes: an MCP client connected to the server it guards, or handlers by name. */
export type McpUpstream = Pick<Client, 'listTools' | 'callTool'> | Readonly<Record<string, McpToolHandler>>;

/** An upstream as the server uses it. */
export interface UpstreamTools {
  list(cursor: string | undefined, signal: AbortSignal): Promise<ListToolsResult>;
  /** Calls a tool; a failure of the tool is an `isError` result, never a throw. */
  call(params: CallToolRequestParams, signal: AbortSignal): Promise<CallToolResult>;
}

/**
 * The upstream in one shape.
 * @throws {InvalidOptionError} when it is neither a client nor handlers with `execute`.
 */
export function upstreamTools(upstream: McpUpstream): UpstreamTools {
  if (isClient(upstream)) {
    return {
      list: (cursor, signal) => upstream.listTools(cursor === undefined ? {} : { cursor }, { signal }),
      call: (params, signal) => failureAsResult(params.name, async () => (await upstream.callTool(params, undefined, { signal })) as CallToolResult),
    };
  }
  const handlers = new Map(Object.entries(upstream ?? {}));
  const notHandler = [...handlers].find(([, handler]) => typeof handler?.execute !== 'function');
  if (handlers.size === 0 || notHandler) {
    throw new InvalidOptionError({ parameter: 'upstream', value: notHandler?.[0] ?? upstream, fix: 'Pass a connected MCP Client, or tool handlers by name: { get_booking: { description, inputSchema, execute } }.' });
  }
  const tools: Tool[] = [...handlers].map(([name, handler]) => ({ name, ...(handler.description ? { description: handler.description } : {}), inputSchema: handler.inputSchema ?? { type: 'object' } }));
  return {
    list: async () => ({ tools }),
    call: (params, signal) => {
      const handler = handlers.get(params.name);
      if (!handler) return Promise.resolve(errorResult(`Unknown tool ${params.name}; the tools are ${[...handlers.keys()].join(', ')}.`));
      return failureAsResult(params.name, async () => asResult(await handler.execute(params.arguments ?? {}, { signal })));
    },
  };
}

function isClient(upstream: McpUpstream): upstream is Pick<Client, 'listTools' | 'callTool'> {
  return typeof (upstream as Client)?.callTool === 'function' && typeof (upstream as Client).listTools === 'function';
}

async function failureAsResult(name: string, run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    // As the SDK's own McpServer answers a throwing tool: the model reads the failure and chooses again.
    return errorResult(`${name} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function asResult(value: unknown): CallToolResult {
  if (typeof value === 'object' && value !== null && Array.isArray((value as CallToolResult).content)) return value as CallToolResult;
  return { content: [{ type: 'text', text: typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)) }] };
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
