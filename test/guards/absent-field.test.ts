/**
 * A field missing from a data tool's record is absent, not a fetch failure: no fact (a condition on it is false and
 * `not` holds), or the declaration's `default`. Through the airline example's tools, whose reservations (as in
 * tau-bench) carry no `status` until they are cancelled.
 */
import { describe, expect, it } from 'vitest';
import { createAirlineTools, loadAirlineDb } from '../../examples/airline/tools.js';
import { createFactStore, createSentinel, parseRulebase } from '../../src/index.js';
import { createFakeClock } from '../../src/testing/index.js';

const RULES = `
data status_or_active(R, S) from get_reservation_details(reservation_id: R) -> S = $.status default active ttl 60s
data status_field(R, S)     from get_reservation_details(reservation_id: R) -> S = $.status ttl 60s
data cabin(R, C)            from get_reservation_details(reservation_id: R) -> C = $.cabin.name ttl 60s
rule cancelled(R) :- status_field(R, cancelled).
`;

function world() {
  const db = loadAirlineDb();
  const tools = createAirlineTools(db);
  const sentinel = createSentinel({ rulebase: parseRulebase(RULES, { source: 'absent.rules' }), facts: createFactStore({ clock: createFakeClock() }), tools });
  return { db, tools, sentinel };
}

describe('absent is not failed', () => {
  it('a record without the field: the default holds, and a rule that needs the field is simply false', async () => {
    const { db, sentinel } = world();
    expect(db.reservations['4WQ150']).not.toHaveProperty('status');
    expect(await sentinel.query('status_or_active("4WQ150", S)')).toMatchObject({ status: 'proved', answers: [{ bindings: { S: 'active' } }] });
    const needs = await sentinel.query('cancelled("4WQ150")');
    expect(needs.status).toBe('failed'); // before: blocked on a fetch failure, so it could never be decided
    expect(needs.blockers.some((blocker) => blocker.kind === 'fetch-failed')).toBe(false);
    expect(await sentinel.query('not cancelled("4WQ150")')).toMatchObject({ status: 'proved' });
  });

  it('after a cancellation the field is there and wins over the default', async () => {
    const { tools, sentinel } = world();
    tools.cancel_reservation!.execute({ reservation_id: '4WQ150' });
    expect(await sentinel.query('status_or_active("4WQ150", S)')).toMatchObject({ answers: [{ bindings: { S: 'cancelled' } }] });
    expect(await sentinel.query('cancelled("4WQ150")')).toMatchObject({ status: 'proved' });
  });

  it('a record of another shape is still a fetch failure, with the path', async () => {
    const { sentinel } = world();
    const result = await sentinel.query('cabin("4WQ150", C)');
    expect(result).toMatchObject({ status: 'blocked', blockers: [{ kind: 'fetch-failed', reason: expect.stringContaining('$.cabin is string "') }] });
  });

  it('parses `default` with a constant only, with the position', () => {
    expect(() => parseRulebase('data s(R, S) from get(id: R) -> S = $.status default X ttl 60s', { source: 'bad.rules' })).toThrow(/bad\.rules:1:\d+.*expected a constant after default/);
  });
});
