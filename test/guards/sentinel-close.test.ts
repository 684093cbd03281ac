import { describe, expect, it } from 'vitest';
import { ClosedError, createFactStore, createSentinel, createSentinelSessions, parseRulebase } from '../../src/index.js';
import { createFakeClock } from '../../src/testing/index.js';
import { REFUND_RULES } from './helpers.js';

const rulebase = parseRulebase(REFUND_RULES, { source: 'refund.rules' });
const bookings: Record<string, { status: string; delay_minutes: number }> = { BK1: { status: 'cancelled_by_airline', delay_minutes: 0 } };

/** A data tool that answers when told to, so a check can be caught in flight. */
function slowBookings() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  return { release, tools: { get_booking: { execute: async (args: Record<string, unknown>) => (await released, bookings[String(args.booking_id)]) } } };
}

describe('sentinel.close', () => {
  it('waits for the check in flight, then refuses every call with a ClosedError; closing twice is one close', async () => {
    const clock = createFakeClock();
    const { release, tools } = slowBookings();
    const sentinel = createSentinel({ rulebase, facts: createFactStore({ clock }), tools });
    sentinel.bindContext('booking_of_interest', 'BK1');
    sentinel.confirm('customer_confirms("BK1")');
    const inFlight = sentinel.check('issue_refund', { booking_id: 'BK1' });
    const closing = sentinel.close();
    expect(sentinel.close()).toBe(closing);
    let closed = false;
    void closing.then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(closed).toBe(false); // the check still runs
    release();
    expect((await inFlight).allowed).toBe(true);
    await closing;
    await expect(sentinel.check('issue_refund', { booking_id: 'BK1' })).rejects.toThrow('sentinel.check() was called after sentinel.close(): a closed sentinel takes no more calls.');
    await expect(sentinel.query('refundable(booking_of_interest)')).rejects.toSatisfy(ClosedError.isInstance);
    expect(() => sentinel.bindContext('booking_of_interest', 'BK1')).toThrow(expect.objectContaining({ code: 'CLOSED', component: 'sentinel', method: 'bindContext' }));
    expect(() => sentinel.confirm('customer_confirms("BK1")')).toThrow(ClosedError);
    expect(() => sentinel.recordResult('issue_refund', { booking_id: 'BK1' }, { ok: true, result: {} })).toThrow(ClosedError);
  });
});

describe('per-conversation sentinels: resetSession and close', () => {
  it("resetSession starts one conversation's facts afresh and leaves the others", async () => {
    const clock = createFakeClock();
    const sentinels = createSentinelSessions({ rulebase, tools: { get_booking: { execute: async (args) => bookings[String(args.booking_id)] } }, clock });
    for (const id of ['alice', 'bob']) {
      sentinels.forSession(id).bindContext('booking_of_interest', 'BK1');
      sentinels.forSession(id).confirm('customer_confirms("BK1")');
    }
    sentinels.resetSession('alice');
    const alice = await sentinels.forSession('alice').check('issue_refund', { booking_id: 'BK1' });
    expect(alice.blockers).toContainEqual(expect.objectContaining({ kind: 'bind-context', name: 'booking_of_interest' }));
    expect((await sentinels.forSession('bob').check('issue_refund', { booking_id: 'BK1' })).allowed).toBe(true);
  });

  it('close waits for every conversation, then refuses the sessions and each sentinel they gave out', async () => {
    const { release, tools } = slowBookings();
    const sentinels = createSentinelSessions({ rulebase, tools, clock: createFakeClock() });
    const alice = sentinels.forSession('alice');
    alice.bindContext('booking_of_interest', 'BK1');
    alice.confirm('customer_confirms("BK1")');
    const inFlight = alice.check('issue_refund', { booking_id: 'BK1' });
    const closing = sentinels.close();
    expect(sentinels.close()).toBe(closing);
    release();
    expect((await inFlight).allowed).toBe(true);
    await closing;
    expect(() => sentinels.forSession('bob')).toThrow('sentinel-sessions.forSession() was called after sentinel-sessions.close()');
    expect(() => sentinels.resetSession('alice')).toThrow(ClosedError);
    await expect(alice.check('issue_refund', { booking_id: 'BK1' })).rejects.toMatchObject({ code: 'CLOSED', component: 'sentinel-sessions', method: 'check' });
  });
});
