import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { mcpDataTools, refusalOf, wrapMcpClient } from '../../../adapters/mcp/index.js';
import { createFactStore, createMonitor, createSentinel, createSentinelSessions, InvalidOptionError, parseRulebase, type Monitor } from '../../../src/index.js';
import { createFakeClock } from '../../../src/testing/index.js';
import { REFUND_RULES } from '../../guards/helpers.js';
import { recordingLogger, workflow } from '../ai-sdk/fixtures.js';

const bookings: Record<string, { status: string; delay_minutes: number }> = { B1: { status: 'cancelled_by_airline', delay_minutes: 0 } };
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((closable) => closable.close()));
});

/** A real MCP server with a support agent's tools, connected to a real client in memory; `received` lists what reached the server. */
async function connectedClient() {
  const received: string[] = [];
  const server = new McpServer({ name: 'support', version: '1.0.0' });
  server.registerTool('verify_identity', { description: 'Verify the customer', inputSchema: { orderId: z.string() } }, async ({ orderId }) => {
    received.push(`verify_identity ${orderId}`);
    return { content: [{ type: 'text', text: `Customer of order ${orderId} verified.` }] };
  });
  server.registerTool('issue_refund', { description: 'Refund a booking', inputSchema: { booking_id: z.string() } }, async ({ booking_id }) => {
    received.push(`issue_refund ${booking_id}`);
    return { content: [{ type: 'text', text: `Refunded ${booking_id}.` }] };
  });
  server.registerTool('get_booking', { description: 'Look up a booking', inputSchema: { booking_id: z.string() } }, async ({ booking_id }) => {
    received.push(`get_booking ${booking_id}`);
    const booking = bookings[booking_id];
    return booking ? { content: [{ type: 'text', text: JSON.stringify(booking) }] } : { content: [{ type: 'text', text: `No booking ${booking_id}.` }], isError: true };
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  open.push(client, server);
  return { client, received };
}

const textOf = (result: Record<string, unknown>) => (result.content as Array<{ type: string; text?: string }>).map((item) => item.text ?? '').join('\n');

describe('wrapMcpClient with a monitor', () => {
  it('refuses a call that breaks the workflow with an isError result that never reaches the server', async () => {
    const { client, received } = await connectedClient();
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const guarded = wrapMcpClient(client, { monitor, sessionId: 's1' });

    const refused = await guarded.callTool({ name: 'issue_refund', arguments: { booking_id: 'B1' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^The call to issue_refund was refused and did not run\..*verify_identity/);
    expect(refusalOf(refused)).toMatchObject({ by: 'monitor', tool: 'issue_refund', constraints: ['verify_first'] });
    expect(received).toEqual([]);

    expect(textOf(await guarded.callTool({ name: 'verify_identity', arguments: { orderId: '42' } }))).toBe('Customer of order 42 verified.');
    expect(textOf(await guarded.callTool({ name: 'issue_refund', arguments: { booking_id: 'B1' } }))).toBe('Refunded B1.');
    expect(received).toEqual(['verify_identity 42', 'issue_refund B1']);
    expect((await monitor.report('s1'))!).toMatchObject({ trace: ['greeting', 'verify_identity', 'account_action'], violations: [] });
  });

  it('leaves everything else to the client', async () => {
    const { client } = await connectedClient();
    const guarded = wrapMcpClient(client, { monitor: createMonitor({ workflow }), sessionId: 's1' });
    const { tools } = await guarded.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['get_booking', 'issue_refund', 'verify_identity']);
    expect(guarded.getServerVersion()).toEqual({ name: 'support', version: '1.0.0' });
    expect(client.callTool).not.toBe(guarded.callTool); // the original client stays unguarded
  });

  it('lets calls through when the monitor fails, and says so once', async () => {
    const { client, received } = await connectedClient();
    const logger = recordingLogger();
    const broken: Monitor = { ...createMonitor({ workflow }), beforeTool: () => Promise.reject(new Error('store unreachable')) };
    const guarded = wrapMcpClient(client, { monitor: broken, sessionId: () => 's1', logger });
    await guarded.callTool({ name: 'issue_refund', arguments: { booking_id: 'B1' } });
    await guarded.callTool({ name: 'issue_refund', arguments: { booking_id: 'B2' } });
    expect(received).toEqual(['issue_refund B1', 'issue_refund B2']);
    expect(logger.warnings).toHaveLength(1);
  });
});

describe('wrapMcpClient with a sentinel', () => {
  /** The refund rules, their data tool served by the same MCP server. */
  async function guardedByRules() {
    const { client, received } = await connectedClient();
    const facts = createFactStore({ clock: createFakeClock() });
    const sentinel = createSentinel({ rulebase: parseRulebase(REFUND_RULES, { source: 'refund.rules' }), facts, tools: mcpDataTools(client, ['get_booking']) });
    return { guarded: wrapMcpClient(client, { sentinel }), sentinel, facts, received };
  }

  it('returns the blockers as an error result, fetching facts through MCP, and the refund never reaches the server', async () => {
    const { guarded, sentinel, received } = await guardedByRules();
    sentinel.bindContext('booking_of_interest', 'B1');
    const refused = await guarded.callTool({ name: 'issue_refund', arguments: { booking_id: 'B1' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('Does the customer confirm the refund for booking B1?');
    expect(refusalOf(refused)).toMatchObject({ by: 'sentinel', status: 'blocked', blockers: expect.arrayContaining([expect.objectContaining({ kind: 'ask', goal: 'customer_confirms("B1")' })]) });
    expect(received).toEqual(['get_booking B1']); // the facts were fetched; the action was not sent
  });

  it('sends the call once the facts prove it allowed', async () => {
    const { guarded, sentinel, facts, received } = await guardedByRules();
    sentinel.bindContext('booking_of_interest', 'B1');
    facts.assert('customer_confirms', ['B1'], { source: 'user' });
    const result = await guarded.callTool({ name: 'issue_refund', arguments: { booking_id: 'B1' } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('Refunded B1.');
    expect(received).toEqual(['get_booking B1', 'issue_refund B1']);
  });

  it("records the agent's own read of a data tool as facts, so the proof does not fetch it again; an error result records nothing (issue 14)", async () => {
    const { guarded, sentinel, facts, received } = await guardedByRules();
    expect(textOf(await guarded.callTool({ name: 'get_booking', arguments: { booking_id: 'B1' } }))).toContain('cancelled_by_airline');
    expect(facts.facts('booking_status')).toEqual([expect.objectContaining({ args: ['B1', 'cancelled_by_airline'], source: 'tool:get_booking' })]);
    const before = facts.version;
    expect((await guarded.callTool({ name: 'get_booking', arguments: { booking_id: 'B9' } })).isError).toBe(true);
    expect(facts.version).toBe(before);
    sentinel.bindContext('booking_of_interest', 'B1');
    await guarded.callTool({ name: 'issue_refund', arguments: { booking_id: 'B1' } });
    expect(received).toEqual(['get_booking B1', 'get_booking B9']); // the proof used the agent's read
  });

  it("blocks the proof with the server's reason when a data tool returns an error", async () => {
    const { guarded, sentinel } = await guardedByRules();
    sentinel.bindContext('booking_of_interest', 'B9');
    const refused = await guarded.callTool({ name: 'issue_refund', arguments: { booking_id: 'B9' } });
    expect(refusalOf(refused)!.blockers).toContainEqual(expect.objectContaining({ kind: 'fetch-failed', tool: 'get_booking', reason: expect.stringContaining('No booking B9.') }));
  });
});

describe('wrapMcpClient with per-conversation sentinels', () => {
  it("judges each call with its conversation's facts: one customer's confirmation never lets another's call through", async () => {
    const { client, received } = await connectedClient();
    const sentinels = createSentinelSessions({ rulebase: parseRulebase(REFUND_RULES, { source: 'refund.rules' }), tools: mcpDataTools(client, ['get_booking']) });
    const conversation = { current: 'alice' };
    const guarded = wrapMcpClient(client, { sentinel: sentinels, sessionId: () => conversation.current });
    const alice = sentinels.forSession('alice');
    alice.bindContext('booking_of_interest', 'B1');
    alice.confirm('customer_confirms("B1")');
    expect(textOf(await guarded.callTool({ name: 'issue_refund', arguments: { booking_id: 'B1' } }))).toBe('Refunded B1.');
    conversation.current = 'bob';
    const refused = await guarded.callTool({ name: 'issue_refund', arguments: { booking_id: 'B1' } });
    expect(refusalOf(refused)).toMatchObject({ by: 'sentinel', blockers: expect.arrayContaining([expect.objectContaining({ kind: 'bind-context', name: 'booking_of_interest' })]) });
    expect(received).toEqual(['get_booking B1', 'issue_refund B1']);
  });

  it('needs a session id, and refuses a call whose session id function fails', async () => {
    const { client, received } = await connectedClient();
    const sentinels = createSentinelSessions({ rulebase: parseRulebase(REFUND_RULES), tools: mcpDataTools(client, ['get_booking']) });
    expect(() => wrapMcpClient(client, { sentinel: sentinels })).toThrow('Invalid option `sessionId`: received undefined.');
    const logger = recordingLogger();
    const guarded = wrapMcpClient(client, { sentinel: sentinels, logger, sessionId: () => { throw new Error('no thread'); } });
    const refused = await guarded.callTool({ name: 'issue_refund', arguments: { booking_id: 'B1' } });
    expect(refusalOf(refused)).toMatchObject({ by: 'sentinel', reason: expect.stringContaining('which conversation') });
    expect(received).toEqual([]);
  });
});

describe('wrapMcpClient with a monitor and a sentinel', () => {
  /** The support workflow and the refund rules; tools without a guard (verify_identity) are allowed by the rules. */
  async function guardedByBoth() {
    const { client, received } = await connectedClient();
    const facts = createFactStore({ clock: createFakeClock() });
    const sentinel = createSentinel({ rulebase: parseRulebase(REFUND_RULES, { source: 'refund.rules' }), facts, tools: mcpDataTools(client, ['get_booking']), unguardedTools: 'allow' });
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    return { guarded: wrapMcpClient(client, { monitor, sentinel, sessionId: 's1' }), monitor, sentinel, received };
  }

  it('a call the sentinel refuses does not enter the workflow trace', async () => {
    const { guarded, monitor, sentinel, received } = await guardedByBoth();
    await guarded.callTool({ name: 'verify_identity', arguments: { orderId: '42' } });
    sentinel.bindContext('booking_of_interest', 'B1');
    const refused = await guarded.callTool({ name: 'issue_refund', arguments: { booking_id: 'B1' } });

    expect(refusalOf(refused)).toMatchObject({ by: 'sentinel', status: 'blocked' });
    expect(received).toEqual(['verify_identity 42', 'get_booking B1']); // the refund never reached the server
    const report = (await monitor.report('s1'))!;
    expect(report.trace).toEqual(['greeting', 'verify_identity']);
    expect(report.refusals).toEqual([expect.objectContaining({ state: 'account_action', by: 'guard' })]);
  });

  it('a call the workflow refuses never reaches the sentinel: its data tool is not called', async () => {
    const { guarded, monitor, sentinel, received } = await guardedByBoth();
    const check = vi.spyOn(sentinel, 'check');
    sentinel.bindContext('booking_of_interest', 'B1');
    const refused = await guarded.callTool({ name: 'issue_refund', arguments: { booking_id: 'B1' } });

    expect(refusalOf(refused)).toMatchObject({ by: 'monitor', constraints: ['verify_first'] });
    expect(check).not.toHaveBeenCalled();
    expect(received).toEqual([]); // no get_booking, no refund
    expect((await monitor.report('s1'))!).toMatchObject({ trace: ['greeting'], refusals: [expect.objectContaining({ state: 'account_action', by: 'workflow' })] });
  });

  it('when the monitor throws, the sentinel still decides', async () => {
    const { client, received } = await connectedClient();
    const facts = createFactStore({ clock: createFakeClock() });
    const sentinel = createSentinel({ rulebase: parseRulebase(REFUND_RULES, { source: 'refund.rules' }), facts, tools: mcpDataTools(client, ['get_booking']) });
    const broken: Monitor = { ...createMonitor({ workflow }), beforeTool: () => Promise.reject(new Error('store unreachable')) };
    const logger = recordingLogger();
    const refused = await wrapMcpClient(client, { monitor: broken, sentinel, sessionId: 's1', logger }).callTool({ name: 'issue_refund', arguments: { booking_id: 'B1' } });

    expect(refusalOf(refused)).toMatchObject({ by: 'sentinel' });
    expect(received).not.toContain('issue_refund B1');
    expect(logger.warnings).toHaveLength(1);
  });
});

describe('wrapMcpClient options', () => {
  it('rejects bad options at construction', async () => {
    const { client } = await connectedClient();
    expect(() => wrapMcpClient(client, {})).toThrow(InvalidOptionError);
    expect(() => wrapMcpClient(client, { monitor: createMonitor({ workflow }) })).toThrow('Invalid option `sessionId`: received undefined.');
    expect(() => wrapMcpClient({} as Client, { monitor: createMonitor({ workflow }), sessionId: 's' })).toThrow('Invalid option `client`');
  });
});
