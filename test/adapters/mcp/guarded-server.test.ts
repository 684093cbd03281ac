/**
 * Issue 14, scope item 5: MCP elicitation as a native approval. A real SDK `Client` talks to
 * `createGuardedMcpServer` through the SDK's `InMemoryTransport`, over the airline example (its tools as handlers,
 * its rulebase, its database) or in front of another real MCP server.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGuardedMcpServer, mcpDataTools, refusalOf, type GuardedMcpServerOptions, type McpToolHandler } from '../../../adapters/mcp/index.js';
import { createFactStore, createMonitor, createSentinel, InvalidOptionError, parseRulebase } from '../../../src/index.js';
import { createFakeClock } from '../../../src/testing/index.js';
import { createAirlineSession } from '../../../examples/airline/sentinel.js';
import { EMMA, emmaBooking } from '../../guards/airline-fixtures.js';
import { recordingLogger, workflow } from '../ai-sdk/fixtures.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((closable) => closable.close()));
});

type Answer = (request: ElicitRequest, signal: AbortSignal) => ElicitResult | Promise<ElicitResult>;
const approve: Answer = () => ({ action: 'accept', content: { decision: 'approve' } });
const decline: Answer = () => ({ action: 'decline' });
/** A user who never answers: the handler waits until the server gives up and cancels the request. */
const silent: Answer = (_request, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve({ action: 'cancel' })));

const textOf = (result: Record<string, unknown>) => (result.content as Array<{ type: string; text?: string }>).map((item) => item.text ?? '').join('\n');

/** A host's client, with or without the elicitation capability, connected to `server`; `asked` lists the elicitation messages. */
async function connect(server: ReturnType<typeof createGuardedMcpServer>, answers?: Answer[]) {
  const asked: string[] = [];
  const client = new Client({ name: 'host', version: '1.0.0' }, answers ? { capabilities: { elicitation: {} } } : {});
  if (answers) {
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
      asked.push(request.params.message);
      const answer = answers.shift();
      if (!answer) throw new Error('the test scripted no more answers');
      return answer(request, extra.signal);
    });
  }
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  open.push(client, server);
  return { client, asked };
}

/** The airline example's tools served by a guarding server; `ran` lists the calls that reached a tool. */
async function airlineServer(options: Partial<GuardedMcpServerOptions> = {}) {
  const session = await createAirlineSession({ userId: EMMA, said: ['offered_insurance'] });
  const ran: Array<{ name: string; args: Record<string, unknown> }> = [];
  const failing = new Set<string>();
  const upstream = Object.fromEntries(
    Object.values(session.tools).map((tool): [string, McpToolHandler] => [
      tool.name,
      {
        description: tool.description,
        inputSchema: tool.parameters as McpToolHandler['inputSchema'],
        execute: (args) => {
          if (failing.has(tool.name)) throw new Error(`${tool.name} is down`);
          ran.push({ name: tool.name, args });
          return tool.execute(args);
        },
      },
    ]),
  );
  const logger = recordingLogger();
  const server = createGuardedMcpServer({ upstream, sentinel: session.sentinel, approvals: true, logger, ...options });
  return { ...session, server, ran, failing, logger };
}

const book = (date: string) => ({ name: 'book_reservation', arguments: emmaBooking(date) });
const bookings = (ran: Array<{ name: string; args: Record<string, unknown> }>) =>
  ran.filter((entry) => entry.name === 'book_reservation').map((entry) => (entry.args.flights as Array<{ date: string }>)[0]!.date);

describe('createGuardedMcpServer: confirmations asked through MCP elicitation', () => {
  it('asks the user about the exact call; an approval records the confirmation for it, and the call runs and consumes it', async () => {
    const { server, ran, facts, db } = await airlineServer();
    const { client, asked } = await connect(server, [approve]);
    const result = await client.callTool(book('2024-05-20'));
    expect(result.isError).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/^Book exactly this for user emma_smith_9363: book_reservation\(flights: .*date: "2024-05-20".*insurance: no\)\? \(yes\/no\)$/);
    expect(bookings(ran)).toEqual(['2024-05-20']);
    const booked = JSON.parse(textOf(result)) as { reservation_id: string };
    expect(db.reservations[booked.reservation_id]).toMatchObject({ user_id: EMMA, origin: 'DEN' });
    expect(facts.facts('confirms_booking')).toEqual([]); // consumed by the call that ran: a second booking needs a second yes
  });

  it('a decline (or a cancel, or a form answered "decline") refuses the call with the text saying the user declined', async () => {
    const { server, ran, facts } = await airlineServer();
    const { client, asked } = await connect(server, [decline, () => ({ action: 'cancel' }), () => ({ action: 'accept', content: { decision: 'decline' } })]);
    for (const date of ['2024-05-20', '2024-05-21', '2024-05-22']) {
      const result = await client.callTool(book(date));
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe('The user declined this book_reservation call. Do not retry it unless they ask again.');
      expect(refusalOf(result)).toMatchObject({ by: 'sentinel', tool: 'book_reservation', status: 'blocked' });
    }
    expect(asked).toHaveLength(3);
    expect(ran).toEqual([]);
    expect(facts.facts('confirms_booking')).toEqual([]);
  });

  it('an approval of one call does not cover a different call', async () => {
    const { server, ran, failing, facts } = await airlineServer();
    const { client, asked } = await connect(server, [approve, decline]);
    // May 20 is approved, but the booking system fails: a failed write consumes nothing, the yes to May 20 stays.
    failing.add('book_reservation');
    expect(textOf(await client.callTool(book('2024-05-20')))).toBe('book_reservation failed: book_reservation is down');
    failing.clear();
    expect(facts.facts('confirms_booking')).toHaveLength(1);
    // May 21 is another call: the user is asked about it, by its own date, and declines.
    const other = await client.callTool(book('2024-05-21'));
    expect(textOf(other)).toBe('The user declined this book_reservation call. Do not retry it unless they ask again.');
    expect(asked[1]).toContain('date: "2024-05-21"');
    expect(asked[1]).not.toContain('2024-05-20');
    // May 20 again: its approval still holds, so it runs without asking.
    expect((await client.callTool(book('2024-05-20'))).isError).toBeFalsy();
    expect(asked).toHaveLength(2);
    expect(bookings(ran)).toEqual(['2024-05-20']);
  });

  it("a client without the elicitation capability gets the refusal; the model's record_confirmation alone does not confirm a grounded askable", async () => {
    const { server, ran } = await airlineServer();
    const { client } = await connect(server);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['query_policy', 'set_context', 'record_confirmation', 'book_reservation', 'get_user_details']));
    const refused = await client.callTool(book('2024-05-20'));
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^book_reservation is not allowed yet\. To proceed:\n- Ask the user: "Book exactly this for user emma_smith_9363: book_reservation\(/);
    const goal = /goal `([^`]+)`/.exec(textOf(refused))![1]!;
    expect(goal).toMatch(/^confirms_booking\(emma_smith_9363, "book_reservation#[0-9a-z]+"\)$/);
    // An MCP server sees no conversation, so nothing shows the user's yes to this call: the model's word is not enough.
    const reported = await client.callTool({ name: 'record_confirmation', arguments: { goal, answer: 'yes' } });
    expect(reported.isError).toBe(true);
    expect(textOf(reported)).toContain('this host passes no messages');
    expect((await client.callTool(book('2024-05-20'))).isError).toBe(true);
    expect(bookings(ran)).toEqual([]);
    expect(server.misses()).toEqual({}); // the server never tried to ask this client
  });

  it('a call refused for anything but the confirmation is not put to the user', async () => {
    const { server, ran } = await airlineServer();
    const { client, asked } = await connect(server, [approve]);
    const refused = await client.callTool({ name: 'book_reservation', arguments: { ...emmaBooking('2024-05-20'), nonfree_baggages: 3 } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^book_reservation is not allowed by the policy: 1 bags with \d+ free means 0 paid bags, not 3\./);
    expect(asked).toEqual([]);
    expect(ran).toEqual([]);
  });

  it('without approvals, a client with the capability is not asked', async () => {
    const { server } = await airlineServer({ approvals: false });
    const { client, asked } = await connect(server, [approve]);
    expect(textOf(await client.callTool(book('2024-05-20')))).toMatch(/^book_reservation is not allowed yet\./);
    expect(asked).toEqual([]);
  });
});

describe('createGuardedMcpServer: the user on the other side is bounded and may fail', () => {
  it('an approval nobody gives within approvalTimeoutMs refuses the call with the usual text, counted and logged once', async () => {
    const { server, ran, logger } = await airlineServer({ approvalTimeoutMs: 20 });
    const { client, asked } = await connect(server, [silent, silent]);
    for (const date of ['2024-05-20', '2024-05-21']) {
      const refused = await client.callTool(book(date));
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/^book_reservation is not allowed yet\. To proceed:\n- Ask the user: "Book exactly this/);
    }
    expect(asked).toHaveLength(2);
    expect(ran).toEqual([]);
    expect(server.misses()).toEqual({ 'approval-timeout': 2 });
    expect(logger.warnings).toEqual([
      '[panoptes] No answer to the approval of book_reservation came within 20 ms; the call was refused, and the model reads how to ask in the chat. Later approval-timeout failures are counted, not logged.',
    ]);
  });

  it('a client that fails to ask refuses the call, counted and logged once', async () => {
    const { server, ran, logger } = await airlineServer();
    const broken: Answer = () => {
      throw new Error('no window to show the form in');
    };
    const { client } = await connect(server, [broken, broken]);
    await client.callTool(book('2024-05-20'));
    const refused = await client.callTool(book('2024-05-21'));
    expect(textOf(refused)).toMatch(/^book_reservation is not allowed yet\./);
    expect(ran).toEqual([]);
    expect(server.misses()).toEqual({ 'approval-failed': 2 });
    expect(logger.warnings).toEqual([expect.stringMatching(/^\[panoptes\] The client failed to ask for the approval of book_reservation; the call was refused/)]);
  });
});

describe('createGuardedMcpServer: a client that cancels its call while the user is asked', () => {
  it('the call does not run, and nothing is counted as a failure', async () => {
    const { server, ran, logger } = await airlineServer();
    const controller = new AbortController();
    const cancelWhileAsking: Answer = (request, signal) => (controller.abort(new Error('the user closed the chat')), silent(request, signal));
    const { client, asked } = await connect(server, [cancelWhileAsking]);
    await expect(client.callTool(book('2024-05-20'), undefined, { signal: controller.signal })).rejects.toThrow('the user closed the chat');
    // The next request on the same connection is answered only after the server has handled the cancelled one.
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect(asked).toHaveLength(1);
    expect(ran).toEqual([]);
    expect(server.misses()).toEqual({});
    expect(logger.warnings).toEqual([]);
  });
});

describe('createGuardedMcpServer: Panoptes\' own failure to record an approval', () => {
  it('refuses the approved call rather than run it unconfirmed, counted and logged once', async () => {
    const session = await createAirlineSession({ userId: EMMA, said: ['offered_insurance'] });
    const sentinel = { ...session.sentinel, recordApproval: () => { throw new Error('fact store is read-only'); } };
    const logger = recordingLogger();
    const ran: string[] = [];
    const upstream = { book_reservation: { execute: () => void ran.push('book_reservation') } };
    const server = createGuardedMcpServer({ upstream, sentinel, approvals: true, logger });
    const { client } = await connect(server, [approve]);
    const refused = await client.callTool(book('2024-05-20'));
    expect(textOf(refused)).toMatch(/^book_reservation is not allowed yet\./);
    expect(ran).toEqual([]);
    expect(server.misses()).toEqual({ 'approval-record': 1 });
    expect(logger.warnings).toEqual([expect.stringMatching(/^\[panoptes\] Recording the user's approval of book_reservation failed; the call was refused\./)]);
  });
});

describe('createGuardedMcpServer with a workflow monitor', () => {
  it('refuses a call the workflow forbids now, and serves it once the workflow allows it', async () => {
    const received: string[] = [];
    const upstream: Record<string, McpToolHandler> = {
      verify_identity: { execute: ({ orderId }) => (received.push(`verify_identity ${String(orderId)}`), `Customer of order ${String(orderId)} verified.`) },
      issue_refund: { execute: ({ booking_id }) => (received.push(`issue_refund ${String(booking_id)}`), `Refunded ${String(booking_id)}.`) },
    };
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const { client } = await connect(createGuardedMcpServer({ upstream, monitor, sessionId: 's1' }));
    const refused = await client.callTool({ name: 'issue_refund', arguments: { booking_id: 'B1' } });
    expect(textOf(refused)).toMatch(/^The call to issue_refund was refused and did not run\..*verify_identity/);
    expect(refusalOf(refused)).toMatchObject({ by: 'monitor', tool: 'issue_refund', constraints: ['verify_first'] });
    expect(textOf(await client.callTool({ name: 'verify_identity', arguments: { orderId: '42' } }))).toBe('Customer of order 42 verified.');
    expect(textOf(await client.callTool({ name: 'issue_refund', arguments: { booking_id: 'B1' } }))).toBe('Refunded B1.');
    expect(received).toEqual(['verify_identity 42', 'issue_refund B1']);
  });

  it('asks the user only about a call the workflow allows: one it refuses is refused before the rules or the user see it', async () => {
    const received: string[] = [];
    const upstream: Record<string, McpToolHandler> = {
      verify_identity: { execute: () => (received.push('verify_identity'), 'Verified.') },
      issue_refund: { execute: ({ booking_id }) => (received.push(`issue_refund ${String(booking_id)}`), `Refunded ${String(booking_id)}.`) },
    };
    // The rules need nothing but the user's yes to this exact call: they alone would put it to the user.
    const rules = parseRulebase('askable confirms_refund(B) for issue_refund "Refund exactly this: {call}? (yes/no)"\nguard issue_refund(booking_id: B) :- confirms_refund(B).\nguard verify_identity.');
    const sentinel = createSentinel({ rulebase: rules, facts: createFactStore({ clock: createFakeClock() }) });
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const { client, asked } = await connect(createGuardedMcpServer({ upstream, monitor, sentinel, sessionId: 's1', approvals: true }), [approve]);

    const refused = await client.callTool({ name: 'issue_refund', arguments: { booking_id: 'B1' } });
    expect(refusalOf(refused)).toMatchObject({ by: 'monitor', constraints: ['verify_first'] });
    expect(asked).toEqual([]);
    await client.callTool({ name: 'verify_identity', arguments: {} });
    expect(textOf(await client.callTool({ name: 'issue_refund', arguments: { booking_id: 'B1' } }))).toBe('Refunded B1.');
    expect(asked).toEqual(['Refund exactly this: issue_refund(booking_id: "B1")? (yes/no)']);
    expect(received).toEqual(['verify_identity', 'issue_refund B1']);
  });
});

describe('createGuardedMcpServer in front of another MCP server', () => {
  const RULES = `
data booking_status(B, S) from get_booking(booking_id: B) -> S = $.status ttl 60s
askable confirms_refund(B) for issue_refund "Refund exactly this: {call}? (yes/no)"
guard issue_refund(booking_id: B) :- booking_status(B, cancelled_by_airline), confirms_refund(B).
`;

  it('lists the upstream tools with the policy tools, and guards each call, asking through elicitation', async () => {
    const received: string[] = [];
    const support = new McpServer({ name: 'support', version: '1.0.0' });
    support.registerTool('get_booking', { description: 'Look up a booking', inputSchema: { booking_id: z.string() } }, async ({ booking_id }) => {
      received.push(`get_booking ${booking_id}`);
      return { content: [{ type: 'text', text: JSON.stringify({ status: booking_id === 'B1' ? 'cancelled_by_airline' : 'active' }) }] };
    });
    support.registerTool('issue_refund', { description: 'Refund a booking', inputSchema: { booking_id: z.string() } }, async ({ booking_id }) => {
      received.push(`issue_refund ${booking_id}`);
      return { content: [{ type: 'text', text: `Refunded ${booking_id}.` }] };
    });
    const upstream = new Client({ name: 'guard', version: '1.0.0' });
    const [upstreamClient, upstreamServer] = InMemoryTransport.createLinkedPair();
    await Promise.all([support.connect(upstreamServer), upstream.connect(upstreamClient)]);
    open.push(upstream, support);

    const sentinel = createSentinel({ rulebase: parseRulebase(RULES), facts: createFactStore({ clock: createFakeClock() }), tools: mcpDataTools(upstream, ['get_booking']) });
    const { client, asked } = await connect(createGuardedMcpServer({ upstream, sentinel, approvals: true }), [approve]);

    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['query_policy', 'set_context', 'record_confirmation', 'get_booking', 'issue_refund']);
    const refused = await client.callTool({ name: 'issue_refund', arguments: { booking_id: 'B2' } });
    expect(textOf(refused)).toMatch(/^issue_refund is not allowed by the policy: booking_status\("B2", cancelled_by_airline\) does not hold/);
    expect(received).toEqual(['get_booking B2']); // the sentinel's read; the refund never reached the server
    expect(textOf(await client.callTool({ name: 'issue_refund', arguments: { booking_id: 'B1' } }))).toBe('Refunded B1.');
    expect(asked).toEqual(['Refund exactly this: issue_refund(booking_id: "B1")? (yes/no)']);
    expect(received).toEqual(['get_booking B2', 'get_booking B1', 'issue_refund B1']);
  });
});

describe('createGuardedMcpServer validates its options', () => {
  const handlers = { think: { execute: () => 'ok' } };
  const sentinel = () => createSentinel({ rulebase: parseRulebase('guard think.'), facts: createFactStore({ clock: createFakeClock() }) });

  it('names the option, the value and the fix', () => {
    expect(() => createGuardedMcpServer({ upstream: handlers, monitor: createMonitor({ workflow }), sessionId: 's', approvals: true })).toThrow(
      'Invalid option `approvals`: received true. Approvals record the confirmations of a sentinel: pass `sentinel` too.',
    );
    expect(() => createGuardedMcpServer({ upstream: handlers, sentinel: sentinel(), approvalTimeoutMs: 0 })).toThrow(
      'Invalid option `approvalTimeoutMs`: received 0. Pass a positive number of milliseconds; the default is 120000.',
    );
    expect(() => createGuardedMcpServer({ upstream: { think: {} } as never, sentinel: sentinel() })).toThrow(/^Invalid option `upstream`: received "think"\. Pass a connected MCP Client, or tool handlers by name/);
    expect(() => createGuardedMcpServer({ upstream: handlers })).toThrow(InvalidOptionError);
    expect(() => createGuardedMcpServer({ upstream: handlers, monitor: createMonitor({ workflow }) })).toThrow('Invalid option `sessionId`: received undefined.');
  });
});
