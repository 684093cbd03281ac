import { describe, expect, it } from 'vitest';
import { createFactStore } from '../../src/facts/index.js';
import { createSentinel, fetchKey, recordToolResult } from '../../src/guards/index.js';
import { parseRulebase } from '../../src/rules/index.js';
import { createFakeClock } from '../../src/testing/index.js';

const RULES = `
context current_user
data seats(B, N) from get_booking(booking_id: B) -> N = $.seats ttl 60s
askable confirms_change(B) for change_booking "Change booking {B} as follows: {call}?"
write change_booking(booking_id: B) invalidates get_booking(booking_id: B).
guard change_booking(booking_id: B, seats: S) :- seats(B, N), S >= N "seats can only be added: {B} has {N}", confirms_change(B).
guard search(origin: _O).
`;

function setup(strict = false) {
  const clock = createFakeClock();
  const facts = createFactStore({ clock });
  const bookings: Record<string, { seats: number }> = { B1: { seats: 2 } };
  const reads: string[] = [];
  const sentinel = createSentinel({
    rulebase: parseRulebase(RULES, { source: 'b.rules' }),
    facts,
    tools: { get_booking: { execute: ({ booking_id }: { booking_id: string }) => (reads.push(booking_id), bookings[booking_id]) } },
    strict,
  });
  return { clock, facts, sentinel, bookings, reads };
}

describe('sentinel.recordResult (issue 14)', () => {
  it('a successful write consumes its confirmation and invalidates what it changed; the next check reads again', async () => {
    const { facts, sentinel, bookings, reads } = setup();
    const args = { booking_id: 'B1', seats: 3 };
    sentinel.recordApproval(await sentinel.check('change_booking', args));
    expect((await sentinel.check('change_booking', args)).allowed).toBe(true);
    expect(reads).toEqual(['B1']);
    bookings.B1 = { seats: 3 };
    sentinel.recordResult('change_booking', args, { ok: true, result: bookings.B1 });
    expect(facts.facts('confirms_change')).toEqual([]);
    expect(facts.fetchRecord(fetchKey('get_booking', { booking_id: 'B1' }))).toBeUndefined();
    const again = await sentinel.check('change_booking', { booking_id: 'B1', seats: 2 });
    expect(reads).toEqual(['B1', 'B1']);
    expect(again.text.split('\n')[0]).toBe('change_booking is not allowed by the policy: seats can only be added: B1 has 3.');
  });

  it('a failed call changes nothing: no confirmation consumed, no fact dropped', async () => {
    const { facts, sentinel } = setup();
    const args = { booking_id: 'B1', seats: 3 };
    sentinel.recordApproval(await sentinel.check('change_booking', args));
    const before = JSON.stringify(facts.toJSON());
    sentinel.recordResult('change_booking', args, { ok: false });
    expect(JSON.stringify(facts.toJSON())).toBe(before);
    expect((await sentinel.check('change_booking', args)).allowed).toBe(true);
  });

  it("a data tool's result the agent read enters the store as the sentinel's own fetch would, and is not fetched again", async () => {
    const { facts, sentinel, reads } = setup();
    sentinel.recordResult('get_booking', { booking_id: 'B1' }, { ok: true, result: '{"seats": 2}' }); // JSON text, as tools often answer
    expect(facts.facts('seats')).toEqual([expect.objectContaining({ args: ['B1', 2], source: 'tool:get_booking', expiresAt: facts.clock.now() + 60_000 })]);
    await sentinel.check('change_booking', { booking_id: 'B1', seats: 3 });
    expect(reads).toEqual([]);
  });

  it('strict mode accepts a value from any result the agent read, and refuses one nothing gave', async () => {
    const { sentinel } = setup(true);
    const refused = await sentinel.check('change_booking', { booking_id: 'B7', seats: 3 });
    expect(refused.blockers).toEqual([{ kind: 'unestablished-value', parameter: 'booking_id', value: 'B7', read: 'get_booking(booking_id: "B7")' }]);
    sentinel.recordResult('search', { origin: 'DEN' }, { ok: true, result: [{ booking_id: 'B7', seats: 1 }] });
    expect((await sentinel.check('change_booking', { booking_id: 'B7', seats: 3 })).blockers.map((blocker) => blocker.kind)).not.toContain('unestablished-value');
  });

  it('recordToolResult skips the policy tools and reports a failure instead of throwing', () => {
    const { sentinel, facts } = setup();
    const before = facts.version;
    recordToolResult({ name: 'record_confirmation', args: { goal: 'x' } }, { ok: true, result: 'Recorded' }, { sentinel });
    expect(facts.version).toBe(before);
    const errors: unknown[] = [];
    const broken = { ...sentinel, toolNames: sentinel.toolNames, recordResult: () => { throw new Error('store down'); } };
    recordToolResult({ name: 'change_booking', args: {} }, { ok: true, result: {} }, { sentinel: broken, onError: (error) => errors.push(error) });
    expect(errors).toEqual([new Error('store down')]);
  });
});
