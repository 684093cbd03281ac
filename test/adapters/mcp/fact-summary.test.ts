/** The sentinel's known facts served by a guarding MCP server as a resource, read by a real SDK client over the in-memory transport. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createGuardedMcpServer, FACTS_RESOURCE_URI, type GuardedMcpServerOptions } from '../../../adapters/mcp/index.js';
import { createMonitor, InvalidOptionError, type Sentinel } from '../../../src/index.js';
import { refundSetup } from '../../guards/helpers.js';
import { recordingLogger, workflow } from '../ai-sdk/fixtures.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((closable) => closable.close()));
});

async function serve(sentinel: Sentinel, options: Partial<GuardedMcpServerOptions> = {}) {
  const logger = recordingLogger();
  const upstream = { get_booking: { description: 'Look up a booking', inputSchema: { type: 'object' as const, properties: { booking_id: { type: 'string' } } }, execute: () => ({ status: 'cancelled_by_airline', delay_minutes: 0 }) } };
  const server = createGuardedMcpServer({ upstream, sentinel, logger, ...options });
  const client = new Client({ name: 'host', version: '1.0.0' });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  open.push(client, server);
  const read = async () => (await client.readResource({ uri: FACTS_RESOURCE_URI })).contents.map((content) => ('text' in content ? content.text : ''));
  return { server, client, logger, read };
}

describe('createGuardedMcpServer with a sentinel: the facts resource', () => {
  it('lists and serves the summary, and a read after a tool result reads the changed facts; a subscriber is told', async () => {
    const { client, read } = await serve(refundSetup({}).sentinel);
    expect((await client.listResources()).resources).toEqual([expect.objectContaining({ uri: 'panoptes://facts', mimeType: 'text/plain' })]);
    expect(await read()).toEqual(['[KNOWN FACTS]\nContext: (none bound)\nFacts: (none)']);

    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updated.push(notification.params.uri));
    await client.subscribeResource({ uri: FACTS_RESOURCE_URI });
    await client.callTool({ name: 'set_context', arguments: { name: 'booking_of_interest', value: 'B1' } });
    await vi.waitFor(() => expect(updated).toEqual([FACTS_RESOURCE_URI]));
    expect(await read()).toEqual(['[KNOWN FACTS]\nContext: booking_of_interest = "B1"\nFacts: (none)']);
    // A data tool's result enters the fact store, and the next read has it.
    await client.callTool({ name: 'get_booking', arguments: { booking_id: 'B1' } });
    expect((await read())[0]).toMatch(/Facts \(\d+\):\n.*B1/);
    await vi.waitFor(() => expect(updated).toEqual([FACTS_RESOURCE_URI, FACTS_RESOURCE_URI]));
  });

  it('refuses another URI with the one it serves', async () => {
    const { client } = await serve(refundSetup({}).sentinel);
    await expect(client.readResource({ uri: 'panoptes://other' })).rejects.toThrow(/No resource panoptes:\/\/other: this server serves panoptes:\/\/facts only/);
  });

  it('serves no resource with factSummary: false', async () => {
    const { client } = await serve(refundSetup({}).sentinel, { factSummary: false });
    expect(client.getServerCapabilities()?.resources).toBeUndefined();
    await expect(client.readResource({ uri: FACTS_RESOURCE_URI })).rejects.toThrow(/Method not found/);
  });

  it('a summarize() that throws reads empty, is counted, logged once, and the server goes on', async () => {
    const { sentinel } = refundSetup({});
    vi.spyOn(sentinel.facts, 'summarize').mockImplementation(() => {
      throw new Error('summary store down');
    });
    const { server, client, logger, read } = await serve(sentinel);
    expect(await read()).toEqual([]);
    expect(await read()).toEqual([]);
    expect(server.misses()['fact-summary']).toBe(2);
    expect(logger.warnings.filter((warning) => warning.includes('sentinel.facts.summarize'))).toHaveLength(1);
    expect((await client.callTool({ name: 'set_context', arguments: { name: 'booking_of_interest', value: 'B1' } })).isError).toBeFalsy();
  });

  it('refuses factSummary without a sentinel at construction', () => {
    const upstream = { get_booking: { execute: () => 'ok' } };
    expect(() => createGuardedMcpServer({ upstream, monitor: createMonitor({ workflow }), sessionId: 's1', factSummary: true })).toThrow(InvalidOptionError);
    expect(() => createGuardedMcpServer({ upstream, monitor: createMonitor({ workflow }), sessionId: 's1', factSummary: true })).toThrow(/pass `sentinel` too/);
  });
});
