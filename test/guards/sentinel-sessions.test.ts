import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors/index.js';
import { createFactStore } from '../../src/facts/index.js';
import { createPolicyTools, createSentinelSessions, guardToolCall, sentinelFor, type SentinelSessionsOptions } from '../../src/guards/index.js';
import { parseRulebase } from '../../src/rules/index.js';
import { createFakeClock } from '../../src/testing/index.js';
import { REFUND_RULES } from './helpers.js';

const bookings: Record<string, { status: string; delay_minutes: number }> = {
  BK1: { status: 'cancelled_by_airline', delay_minutes: 0 },
  BK2: { status: 'cancelled_by_airline', delay_minutes: 0 },
};

function setup(options: Partial<SentinelSessionsOptions> = {}) {
  const clock = createFakeClock();
  const created: string[] = [];
  const sentinels = createSentinelSessions({
    rulebase: parseRulebase(REFUND_RULES, { source: 'refund.rules' }),
    tools: { get_booking: { execute: async (args) => bookings[String(args.booking_id)] } },
    clock,
    facts: (sessionId) => {
      created.push(sessionId);
      return createFactStore({ clock });
    },
    ...options,
  });
  return { clock, created, sentinels };
}

describe('per-conversation sentinels', () => {
  it("what one conversation established never decides another's calls", async () => {
    const { sentinels, created } = setup();
    const alice = sentinels.forSession('alice');
    alice.bindContext('booking_of_interest', 'BK1');
    alice.confirm('customer_confirms("BK1")');
    expect((await alice.check('issue_refund', { booking_id: 'BK1' })).allowed).toBe(true);

    const bob = sentinels.forSession('bob');
    const refused = await bob.check('issue_refund', { booking_id: 'BK1' });
    expect(refused.allowed).toBe(false);
    expect(refused.blockers).toContainEqual(expect.objectContaining({ kind: 'bind-context', name: 'booking_of_interest' }));
    expect(sentinels.forSession('alice')).toBe(alice);
    expect(created).toEqual(['alice', 'bob']);
  });

  it('forgets a conversation idle for longer than ttlMs, and one deleted', () => {
    const { sentinels, clock, created } = setup({ ttlMs: 60_000 });
    const first = sentinels.forSession('alice');
    clock.advance(60_000);
    expect(sentinels.forSession('alice')).not.toBe(first);
    sentinels.delete('alice');
    sentinels.forSession('alice');
    expect(created).toEqual(['alice', 'alice', 'alice']);
  });

  it('rejects bad options at creation, naming the option', () => {
    const rulebase = parseRulebase(REFUND_RULES);
    expect(() => createSentinelSessions({ rulebase, tools: {} })).toThrow(expect.objectContaining({ parameter: 'tools', message: expect.stringContaining("data tool 'get_booking'") }));
    const notAFunction = { facts: createFactStore() } as unknown as Partial<SentinelSessionsOptions>;
    expect(() => setup(notAFunction)).toThrow(expect.objectContaining({ parameter: 'facts' }));
    expect(() => setup({ ttlMs: 0 })).toThrow(expect.objectContaining({ parameter: 'ttlMs' }));
    expect(() => setup().sentinels.forSession('')).toThrow(InvalidOptionError);
  });

  it('sentinelFor needs a session id for per-conversation sentinels, not for a single one', () => {
    const { sentinels } = setup();
    expect(() => sentinelFor(sentinels, undefined)).toThrow(expect.objectContaining({ parameter: 'sessionId' }));
    const single = sentinels.forSession('x');
    expect(sentinelFor(single, undefined)).toBe(single);
  });

  it('guardToolCall asks the conversation\'s sentinel, and refuses a call that names no conversation', async () => {
    const { sentinels } = setup();
    const alice = sentinels.forSession('alice');
    alice.bindContext('booking_of_interest', 'BK2');
    alice.confirm('customer_confirms("BK2")');
    const call = { id: 'c1', name: 'issue_refund', args: { booking_id: 'BK2' } };
    expect(await guardToolCall(call, { sentinel: sentinels, sessionId: 'alice' })).toEqual({ allowed: true });
    expect(await guardToolCall(call, { sentinel: sentinels, sessionId: 'bob' })).toMatchObject({ allowed: false, by: 'rules' });
    expect(await guardToolCall(call, { sentinel: sentinels })).toMatchObject({ allowed: false, by: 'rules', reason: expect.stringContaining('which conversation') });
  });

  it("the model's policy tools act on the conversation of the call", async () => {
    const { sentinels } = setup();
    const warnings: unknown[][] = [];
    const [query, bind] = createPolicyTools(sentinels, { logger: { warn: (...args: unknown[]) => void warnings.push(args) } });
    expect(await bind!.execute({ name: 'booking_of_interest', value: 'BK1' }, { sessionId: 'alice' })).toEqual({ content: 'booking_of_interest = "BK1".', isError: false });
    expect(sentinels.forSession('alice').facts.context('booking_of_interest')?.value).toBe('BK1');
    expect(sentinels.forSession('bob').facts.context('booking_of_interest')).toBeUndefined();
    expect((await query!.execute({ goal: 'refundable(booking_of_interest)' }, { sessionId: 'bob' })).content).toContain('booking_of_interest');
    expect(warnings).toEqual([]);
  });

  it('a policy tool call that names no conversation tells the model the policy could not be consulted, and is logged once', async () => {
    const { sentinels } = setup();
    const warnings: unknown[][] = [];
    const [query, bind] = createPolicyTools(sentinels, { logger: { warn: (...args: unknown[]) => void warnings.push(args) } });
    expect(await bind!.execute({ name: 'booking_of_interest', value: 'BK1' })).toEqual({ content: 'The policy could not be consulted right now.', isError: true });
    expect(await query!.execute({ goal: 'refundable(booking_of_interest)' })).toEqual({ content: 'The policy could not be consulted right now.', isError: true });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]![0]).toBe('[panoptes] A policy tool failed; the model was told the policy could not be consulted. Later failures of these tools are not logged.');
    expect(InvalidOptionError.isInstance(warnings[0]![1]) && (warnings[0]![1] as InvalidOptionError).message).toMatch(/Per-conversation sentinels need the session id of each call/);
  });
});
