/**
 * Issue 14, scope item 3, as a property: with `strict get_reservation(reservation_id).`, a strict sentinel allows a
 * reservation id to the data tool exactly when some result read in the conversation held it. The oracle is the set of
 * ids in the results recorded so far.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFactStore } from '../../src/facts/index.js';
import { createSentinel } from '../../src/guards/index.js';
import { parseRulebase } from '../../src/rules/index.js';
import { createFakeClock } from '../../src/testing/index.js';

const RULES = `
context current_user
data reservation_of(U, R) from get_user(user_id: U) -> R = $.reservations ttl 60s
data cabin(R, C) from get_reservation(reservation_id: R) -> C = $.cabin ttl 60s
guard cancel_reservation(reservation_id: R) :- reservation_of(current_user, R), cabin(R, business).
strict get_reservation(reservation_id).
`;
const id = fc.constantFrom('R1', 'R2', 'R3', 'R4', 'R5', 'R6');
type Step = { kind: 'read'; ids: string[] } | { kind: 'look-up'; id: string };
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('read' as const), ids: fc.array(id, { maxLength: 3 }) }),
  fc.record({ kind: fc.constant('look-up' as const), id }),
);

describe('strict tool(param): the data tool takes exactly the ids a read gave', () => {
  it('for random reads and look-ups, a look-up is allowed iff an earlier result held the id', async () => {
    const rulebase = parseRulebase(RULES);
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 12 }), async (steps) => {
        const facts = createFactStore({ clock: createFakeClock(), seed: { context: { current_user: 'mia' } } });
        const tools = { get_user: { execute: () => ({ reservations: [] }) }, get_reservation: { execute: () => ({ cabin: 'economy' }) } };
        const sentinel = createSentinel({ rulebase, facts, tools, strict: true });
        const read = new Set<string>();
        for (const next of steps) {
          if (next.kind === 'read') {
            sentinel.recordResult('get_user', { user_id: 'mia' }, { ok: true, result: { reservations: next.ids } });
            next.ids.forEach((value) => read.add(value));
          } else {
            const result = await sentinel.check('get_reservation', { reservation_id: next.id });
            expect(result.allowed).toBe(read.has(next.id));
            if (!result.allowed) expect(result.blockers).toEqual([{ kind: 'unestablished-value', parameter: 'reservation_id', value: next.id, read: 'get_user(user_id: mia)' }]);
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
