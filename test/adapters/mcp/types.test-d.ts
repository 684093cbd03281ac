/**
 * Type tests: the MCP adapter fits the SDK's own types (a `Client` as the upstream, the SDK's `Server` as the result,
 * its transports), and the `@example`s of its doc comments compile.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { expectTypeOf } from 'vitest';
import { createGuardedMcpServer, type GuardedMcpServerOptions, type McpMissCause } from '../../../adapters/mcp/index.js';
import type { Sentinel } from '../../../src/index.js';

declare const client: Client;
declare const sentinel: Sentinel;
declare const inputSchema: { type: 'object'; properties: Record<string, object> };
declare const getBooking: (args: Record<string, unknown>) => unknown;
declare const cancel: (args: Record<string, unknown>) => Promise<unknown>;

expectTypeOf(createGuardedMcpServer({ upstream: client, sentinel })).toExtend<Server>();
expectTypeOf(createGuardedMcpServer({ upstream: client, sentinel }).misses()).toEqualTypeOf<Readonly<Partial<Record<McpMissCause, number>>>>();
// The session id may come from the transport's own session (Streamable HTTP).
export const bySession: GuardedMcpServerOptions['sessionId'] = (_params, extra) => extra.sessionId ?? 'local';
// @ts-expect-error an unknown option is a typo, not ignored
createGuardedMcpServer({ upstream: client, sentinel, approval: true });

export async function docExamples() {
  const server = createGuardedMcpServer({ upstream: { get_booking: { inputSchema, execute: getBooking }, cancel_booking: { inputSchema, execute: cancel } }, sentinel, approvals: true });
  await server.connect(new StdioServerTransport());
}
