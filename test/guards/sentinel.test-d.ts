import { expectTypeOf } from 'vitest';
import { createSentinel, type FactStore, type Rulebase, type SentinelOptions, type ToolHandler } from '../../src/index.js';

declare const rulebase: Rulebase;
declare const facts: FactStore;

// Issue 13, item 9: a data tool's handler may declare its parameters as the tool function does.
async function getBooking({ booking_id }: { booking_id: string }) {
  return { booking_id, status: 'confirmed' };
}
interface FlightQuery {
  flight: string;
  date?: string;
}
const getFlight = async ({ flight }: FlightQuery, { signal }: { signal: AbortSignal }) => ({ flight, aborted: signal.aborted });

createSentinel({ rulebase, facts, tools: { get_booking: { execute: getBooking }, get_flight: { execute: getFlight } } });
createSentinel({ rulebase, facts, tools: [{ name: 'get_booking', execute: getBooking }, { name: 'get_flight', execute: getFlight }] });
createSentinel({ rulebase, facts, tools: { get_booking: { execute: ({ booking_id }: { booking_id: string }) => ({ booking_id }) } } });

// Built in a variable first, then passed.
const tools = { get_booking: { execute: getBooking } };
createSentinel({ rulebase, facts, tools });
const options = { rulebase, facts, tools: [{ name: 'get_flight', execute: getFlight }] } satisfies SentinelOptions;
createSentinel(options);

// An untyped inline handler still gets the call options typed.
createSentinel({
  rulebase,
  facts,
  tools: {
    get_user: {
      execute: (args, options) => {
        expectTypeOf(options).toEqualTypeOf<{ signal: AbortSignal }>();
        return args;
      },
    },
  },
});

// What the sentinel cannot honour is still refused: a handler that needs more than the signal, or no function at all.
// @ts-expect-error the sentinel passes only `{ signal }`
createSentinel({ rulebase, facts, tools: { get_booking: { execute: (_args: { booking_id: string }, options: { signal: AbortSignal; userId: string }) => options.userId } } });
// @ts-expect-error `execute` must be a function
createSentinel({ rulebase, facts, tools: { get_booking: { execute: 'get_booking' } } });
expectTypeOf<{ execute: typeof getBooking }>().toExtend<ToolHandler>();
