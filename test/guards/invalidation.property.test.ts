/**
 * Issue 14, as a property: for random sequences of reads, checks and writes over the airline example database, a
 * fact the sentinel holds (and so any check) is never older than the last write to what it describes. The database
 * is the oracle: every reservation fact that holds equals the database's value at that moment.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAirlineSession } from '../../examples/airline/sentinel.js';
import { AIRLINE_NOW } from '../../examples/airline/tools.js';
import { createFakeClock } from '../../src/testing/index.js';

const USER = 'emma_smith_9363';
const CARD = 'credit_card_4253816';

type Command =
  | { kind: 'book'; day: number }
  | { kind: 'cabin'; pick: number; cabin: 'economy' | 'business' }
  | { kind: 'bags'; pick: number; more: number; fails: boolean }
  | { kind: 'read'; pick: number }
  | { kind: 'read-user' }
  | { kind: 'check'; pick: number }
  | { kind: 'wait'; ms: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('book' as const), day: fc.integer({ min: 16, max: 30 }) }),
  fc.record({ kind: fc.constant('cabin' as const), pick: fc.nat(), cabin: fc.constantFrom('economy' as const, 'business' as const) }),
  fc.record({ kind: fc.constant('bags' as const), pick: fc.nat(), more: fc.integer({ min: 1, max: 2 }), fails: fc.boolean() }),
  fc.record({ kind: fc.constant('read' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('read-user' as const) }),
  fc.record({ kind: fc.constant('check' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 120_000 }) }),
);

describe('issue 14 property: no fact older than the write it describes', () => {
  it('holds for random sequences of reads, checks and writes (the database is the oracle)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { maxLength: 25 }), async (commands) => {
        const clock = createFakeClock(AIRLINE_NOW);
        const { sentinel, facts, tools, db } = await createAirlineSession({ userId: USER, clock });
        const lastWrite = new Map<string, number>();
        const reservations = () => db.users[USER]!.reservations;
        const pick = (index: number) => reservations()[index % reservations().length]!;
        /** The agent runs a tool (it was allowed) and the adapter tells the sentinel what became of it. */
        const run = (tool: string, args: Record<string, unknown>, fails = false) => {
          if (fails) return sentinel.recordResult(tool, args, { ok: false });
          const result = tools[tool]!.execute(args);
          sentinel.recordResult(tool, args, { ok: true, result });
          return result;
        };

        for (const step of commands) {
          switch (step.kind) {
            case 'book': {
              const date = `2024-05-${step.day}`;
              run('book_reservation', {
                user_id: USER, origin: 'DEN', destination: 'CLT', flight_type: 'one_way', cabin: 'economy', insurance: 'no',
                flights: [{ flight_number: 'HAT158', date }, { flight_number: 'HAT016', date }],
                passengers: [{ first_name: 'Emma', last_name: 'Smith', dob: '1987-01-01' }],
                payment_methods: [{ payment_id: CARD, amount: 324 }], total_baggages: 0, nonfree_baggages: 0,
              });
              lastWrite.set(USER, clock.now());
              break;
            }
            case 'cabin': {
              const id = pick(step.pick);
              const flights = db.reservations[id]!.flights.map(({ flight_number, date }) => ({ flight_number, date }));
              run('update_reservation_flights', { reservation_id: id, cabin: step.cabin, flights, payment_id: CARD });
              lastWrite.set(id, clock.now()).set(USER, clock.now());
              break;
            }
            case 'bags': {
              const id = pick(step.pick);
              const total = db.reservations[id]!.total_baggages + step.more;
              run('update_reservation_baggages', { reservation_id: id, total_baggages: total, nonfree_baggages: 0, payment_id: CARD }, step.fails);
              if (!step.fails) lastWrite.set(id, clock.now()).set(USER, clock.now());
              break;
            }
            case 'read':
              run('get_reservation_details', { reservation_id: pick(step.pick) });
              break;
            case 'read-user':
              run('get_user_details', { user_id: USER });
              break;
            case 'check': {
              const id = pick(step.pick);
              await sentinel.check('update_reservation_baggages', { reservation_id: id, total_baggages: db.reservations[id]!.total_baggages + 1, nonfree_baggages: 0, payment_id: CARD });
              break;
            }
            case 'wait':
              clock.advance(step.ms);
              break;
          }

          for (const fact of facts.facts()) {
            if (fact.source === 'tool:get_reservation_details') {
              const id = fact.args[0] as string;
              expect(fact.establishedAt).toBeGreaterThanOrEqual(lastWrite.get(id) ?? 0);
              const reservation = db.reservations[id]!;
              if (fact.predicate === 'cabin') expect(fact.args[1]).toBe(reservation.cabin);
              if (fact.predicate === 'total_baggages') expect(fact.args[1]).toBe(reservation.total_baggages);
            }
            if (fact.source === 'tool:get_user_details') {
              expect(fact.establishedAt).toBeGreaterThanOrEqual(lastWrite.get(USER) ?? 0);
              if (fact.predicate === 'user_reservation') expect(reservations()).toContain(fact.args[1]);
            }
          }
          const known = facts.facts('user_reservation').map((fact) => fact.args[1]);
          if (known.length > 0) expect(known.sort()).toEqual([...reservations()].sort());
        }
      }),
      { numRuns: 150 },
    );
  });
});
