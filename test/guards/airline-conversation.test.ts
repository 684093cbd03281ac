/**
 * Issue 14, through a host: a scripted LangChain `createAgent` agent over the airline example, guarded by
 * `panoptesMiddleware({ sentinel })`, in long multi-write conversations. Each test reproduces one defect.
 */
import type { BaseMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import type { AirlineTool } from '../../examples/airline/tools.js';
import { textOf } from '../../adapters/langchain/index.js';
import { fetchKey } from '../../src/guards/index.js';
import { EMMA, emmaBooking as booking } from './airline-fixtures.js';
import { airlineAgent, call, goalsAskedBy, lastResult, say, toolResults, type Step } from './airline-agent.js';

/** Every call of a tool from now on, the sentinel's own fetches included. */
const callsOf = (tools: Record<string, AirlineTool>, name: string) => {
  const calls: unknown[] = [];
  const tool = tools[name]!;
  const execute = tool.execute.bind(tool);
  tool.execute = (args) => (calls.push(args), execute(args));
  return calls;
};
const text = (messages: BaseMessage[], name: string) => textOf(lastResult(messages, name)?.content);
const confirmAsked = (tool: string, predicate: string): Step => (messages) => call('record_confirmation', { goal: goalsAskedBy(messages, tool, predicate)[0]!, answer: 'yes' });

describe('issue 14: a confirmation is bound to the exact call and consumed', () => {
  it('a yes to one booking does not book other flights, and a second identical booking needs a second yes', async () => {
    const seen: string[] = [];
    const keep = (tool: string, next: Step): Step => (messages) => (seen.push(text(messages, tool)), next(messages));
    const { turn, ran } = await airlineAgent({
      userId: EMMA,
      steps: [
        () => call('book_reservation', booking('2024-05-20')),
        keep('book_reservation', () => say('Shall I book HAT158 and HAT016 on May 20?')),
        // The customer says yes to May 20; the agent records it, then books May 21 instead.
        confirmAsked('book_reservation', 'confirms_booking'),
        () => call('book_reservation', booking('2024-05-21')),
        keep('book_reservation', () => call('book_reservation', booking('2024-05-20'))),
        () => call('book_reservation', booking('2024-05-20')),
        keep('book_reservation', () => say('Booked.')),
      ],
    });
    await turn('Book me DEN to CLT on May 20, economy, one passenger, my visa.');
    await turn('Yes.');
    expect(ran.filter((entry) => entry.name === 'book_reservation').map((entry) => (entry.args.flights as Array<{ date: string }>)[0]!.date)).toEqual(['2024-05-20']);
    // The refusal shows the exact call to confirm, and the yes to May 20 did not cover May 21.
    expect(seen[0]).toMatch(/^book_reservation is not allowed yet\. To proceed:\n- Ask the user: "Book exactly this for user emma_smith_9363: book_reservation\(.*date: "2024-05-20".*\)\? \(yes\/no\)"/);
    expect(seen[1]).toContain('date: "2024-05-21"');
    expect(seen[1]).toMatch(/goal `confirms_booking\(emma_smith_9363, "book_reservation#[0-9a-z]+"\)`/);
    // The same booking again, after it ran: the yes was consumed.
    expect(seen[2]).toMatch(/^book_reservation is not allowed yet\. To proceed:\n- Ask the user: "Book exactly this/);
  });

  it('a yes to one set of flights does not change a reservation to another set', async () => {
    const flights = (date: string) => [
      { flight_number: 'HAT287', date },
      { flight_number: 'HAT235', date },
    ];
    const change = (date: string) => call('update_reservation_flights', { reservation_id: 'VAAOXJ', cabin: 'economy', flights: flights(date), payment_id: 'credit_card_1052991' });
    const { turn, ran, db } = await airlineAgent({
      userId: 'lei_rossi_3206',
      steps: [() => change('2024-05-25'), () => say('Confirm May 25?'), confirmAsked('update_reservation_flights', 'confirms_flight_update'), () => change('2024-05-26'), () => say('Done.')],
    });
    await turn('Move VAAOXJ to May 25.');
    const messages = await turn('Yes.');
    expect(ran.filter((entry) => entry.name === 'update_reservation_flights')).toEqual([]);
    expect(db.reservations.VAAOXJ!.flights[0]!.date).toBe('2024-05-24');
    expect(text(messages, 'update_reservation_flights')).toMatch(/^update_reservation_flights is not allowed yet\. To proceed:\n- Ask the user: "Update reservation VAAOXJ exactly as follows.*2024-05-26/);
  });
});

describe('issue 14: writes invalidate what they change', () => {
  it('after an upgrade to business, the bag check uses the new cabin (1YVFB9: 4 bags, 4 free)', async () => {
    const same = [
      { flight_number: 'HAT158', date: '2024-05-27' },
      { flight_number: 'HAT016', date: '2024-05-27' },
    ];
    const bags = (total: number, nonfree: number) => call('update_reservation_baggages', { reservation_id: '1YVFB9', total_baggages: total, nonfree_baggages: nonfree, payment_id: 'credit_card_4253816' });
    let zeroPaidGoal = '';
    const seen: string[] = [];
    const { turn, ran, db } = await airlineAgent({
      userId: EMMA,
      steps: [
        () => call('update_reservation_flights', { reservation_id: '1YVFB9', cabin: 'business', flights: same, payment_id: 'credit_card_4253816' }),
        confirmAsked('update_reservation_flights', 'confirms_flight_update'),
        () => call('update_reservation_flights', { reservation_id: '1YVFB9', cabin: 'business', flights: same, payment_id: 'credit_card_4253816' }),
        () => bags(4, 0),
        (messages) => {
          seen.push(text(messages, 'update_reservation_baggages'));
          zeroPaidGoal = goalsAskedBy(messages, 'update_reservation_baggages', 'confirms_baggage_update')[0]!;
          return bags(4, 2); // an overcharge: business gives two free bags each
        },
        (messages) => (seen.push(text(messages, 'update_reservation_baggages')), call('record_confirmation', { goal: zeroPaidGoal, answer: 'yes' })),
        () => bags(4, 0),
        () => say('Upgraded, and four bags, none paid.'),
      ],
    });
    await turn('Upgrade 1YVFB9 to business, yes I confirm. Then four bags.');
    expect(db.reservations['1YVFB9']!.cabin).toBe('business');
    // Before issue 14 the cached economy cabin refused this with `0 = 2 does not hold`; now it only needs a yes.
    expect(seen[0]).toMatch(/^update_reservation_baggages is not allowed yet\. To proceed:\n- Ask the user: "Change the bags of reservation 1YVFB9/);
    expect(seen[0]).not.toContain('0 = 2');
    expect(seen[1]).toBe(
      'update_reservation_baggages is not allowed by the policy: 4 bags with 4 free (membership, cabin and passengers of 1YVFB9) means 0 paid bags, not 2.\nDo not retry it with these arguments unless the facts change; tell the user why.',
    );
    expect(ran.map((entry) => entry.name)).toEqual(['update_reservation_flights', 'update_reservation_baggages']);
    expect(db.reservations['1YVFB9']!).toMatchObject({ total_baggages: 4, nonfree_baggages: 0 });
  });

  it('a reservation booked earlier in the conversation belongs to the customer at once', async () => {
    let newId = '';
    const { turn, ran } = await airlineAgent({
      userId: EMMA,
      steps: [
        () => call('get_user_details', { user_id: EMMA }), // the profile is now in the fact store, for 5 minutes
        () => call('book_reservation', booking('2024-05-20')),
        confirmAsked('book_reservation', 'confirms_booking'),
        () => call('book_reservation', booking('2024-05-20')),
        (messages) => {
          newId = JSON.parse(text(messages, 'book_reservation')).reservation_id as string;
          return call('get_reservation_details', { reservation_id: newId });
        },
        () => say('Here is your new booking.'),
      ],
    });
    const messages = await turn('Book DEN to CLT on May 20 and show me the booking. Yes, I confirm.');
    expect(newId).toMatch(/^NEW/);
    expect(ran.map((entry) => entry.name)).toEqual(['get_user_details', 'book_reservation', 'get_reservation_details']);
    expect(lastResult(messages, 'get_reservation_details')?.status).not.toBe('error');
  });

  it('a failed write invalidates nothing and consumes nothing', async () => {
    const same = [
      { flight_number: 'HAT158', date: '2024-05-27' },
      { flight_number: 'HAT016', date: '2024-05-27' },
    ];
    const upgrade = () => call('update_reservation_flights', { reservation_id: '1YVFB9', cabin: 'business', flights: same, payment_id: 'credit_card_4253816' });
    let before: ReturnType<typeof snapshotOf> | undefined;
    let failingSet: Set<string> | undefined;
    let factsRef: { fetchRecord: (key: string) => unknown; facts: (predicate: string) => unknown[] } | undefined;
    const snapshotOf = () => ({ record: factsRef!.fetchRecord(fetchKey('get_reservation_details', { reservation_id: '1YVFB9' })), confirmations: factsRef!.facts('confirms_flight_update').length });
    const agent = await airlineAgent({
      userId: EMMA,
      steps: [
        upgrade,
        confirmAsked('update_reservation_flights', 'confirms_flight_update'),
        () => {
          before = snapshotOf();
          failingSet!.add('update_reservation_flights'); // the booking system is down for this call
          return upgrade();
        },
        () => {
          expect(snapshotOf()).toEqual(before);
          failingSet!.delete('update_reservation_flights');
          return upgrade(); // the same call again: the yes still stands, the facts were not dropped
        },
        () => say('Upgraded.'),
      ],
    });
    failingSet = agent.failing;
    factsRef = agent.facts;
    const messages = await agent.turn('Upgrade 1YVFB9 to business. Yes.');
    expect(before).toMatchObject({ confirmations: 1 });
    expect(toolResults(messages).filter((message) => message.name === 'update_reservation_flights').map((message) => message.status)).toEqual(['error', 'error', 'success']);
    expect(agent.db.reservations['1YVFB9']!.cabin).toBe('business');
    expect(agent.facts.facts('confirms_flight_update')).toEqual([]); // consumed by the call that ran
  });
});

describe('issue 14: strict mode an honest agent can satisfy', () => {
  it("allows a write on an id the agent read, refuses a made-up one, and never refuses the agent's reads", async () => {
    const agent = await airlineAgent({
      userId: EMMA,
      strict: true,
      steps: [
        () => call('cancel_reservation', { reservation_id: 'ZZZ999' }),
        () => call('cancel_reservation', { reservation_id: '1YVFB9' }), // the customer's words, not yet read
        () => call('get_user_details', { user_id: EMMA }),
        () => call('cancel_reservation', { reservation_id: '1YVFB9' }),
        () => call('get_reservation_details', { reservation_id: '1YVFB9' }), // a read is judged by its guard alone
        () => say('What is the reason for the cancellation?'),
      ],
    });
    // Count every call of the data tool, the sentinel's own fetches included: the agent's read must be the only one.
    const userReads = callsOf(agent.tools, 'get_user_details');
    const messages = await agent.turn('Cancel 1YVFB9.');
    const refusals = toolResults(messages).filter((message) => message.name === 'cancel_reservation').map((message) => textOf(message.content));
    expect(refusals[0]).toContain('reservation_id = "ZZZ999" is not a known fact: read it first with get_user_details(user_id: emma_smith_9363)');
    expect(refusals[1]).toContain('reservation_id = "1YVFB9" is not a known fact');
    expect(refusals[2]).not.toContain('not a known fact');
    expect(refusals[2]).toMatch(/^cancel_reservation is not allowed yet\. To proceed:\n- Ask the user: "What is the reason for cancelling 1YVFB9/);
    expect(agent.ran.map((entry) => entry.name)).toEqual(['get_user_details', 'get_reservation_details']);
    expect(userReads).toHaveLength(1); // the agent's read entered the fact store; nothing was fetched twice
  });
});

describe('issue 14: strict checks of a data tool\'s own arguments, where the rulebase says so', () => {
  // policy.rules: `strict get_reservation_details(reservation_id).` Without it, the made-up id below went to the
  // guard, which fetched the profile itself and refused with "not allowed by the policy ... do not retry".
  it('a made-up reservation id is refused before any read, naming the read that establishes ids; a read id is looked up', async () => {
    const agent = await airlineAgent({
      userId: EMMA,
      strict: true,
      steps: [
        () => call('get_reservation_details', { reservation_id: 'ZZZ999' }),
        () => call('get_user_details', { user_id: EMMA }),
        () => call('get_reservation_details', { reservation_id: '1YVFB9' }),
        () => say('Your reservation 1YVFB9 is DEN to CLT.'),
      ],
    });
    const userReads = callsOf(agent.tools, 'get_user_details');
    const messages = await agent.turn('What is on my reservation ZZZ999?');
    const [madeUp, read] = toolResults(messages).filter((message) => message.name === 'get_reservation_details').map((message) => textOf(message.content));
    expect(madeUp).toBe(
      'get_reservation_details is not allowed yet. To proceed:\n- reservation_id = "ZZZ999" is not a known fact: read it first with get_user_details(user_id: emma_smith_9363) (or, if the user said it, ask them and call set_context).',
    );
    expect(JSON.parse(read!)).toMatchObject({ reservation_id: '1YVFB9', origin: 'DEN' });
    expect(agent.ran.map((entry) => entry.name)).toEqual(['get_user_details', 'get_reservation_details']);
    expect(userReads).toHaveLength(1); // the refusal fetched nothing: the agent's own read is the only one
  });
});

describe('issue 14: strict mode and the user\'s own words', () => {
  it('accepts a `given` parameter the customer said, and refuses one nobody said', async () => {
    const { turn } = await airlineAgent({
      userId: EMMA,
      strict: true,
      steps: [() => call('book_reservation', { ...booking('2024-05-20'), origin: 'LAX' }), () => call('book_reservation', booking('2024-05-20')), () => say('Shall I book it?')],
    });
    const messages = await turn('Book me Denver DEN to Charlotte CLT, one way on May 20, economy, no insurance.');
    const [invented, said] = toolResults(messages).filter((message) => message.name === 'book_reservation').map((message) => textOf(message.content));
    expect(invented).toContain('origin = "LAX" is not a known fact: the user has not said it in this conversation; ask them.');
    expect(said).not.toContain('not a known fact');
    expect(said).toMatch(/^book_reservation is not allowed yet\. To proceed:\n- Ask the user: "Book exactly this/);
  });
});

describe('issue 14: a refusal leads with the decisive reason', () => {
  it('a flight change paid with a certificate names the payment rule, not trip_type', async () => {
    const flights = [
      { flight_number: 'HAT287', date: '2024-05-25' },
      { flight_number: 'HAT235', date: '2024-05-25' },
    ];
    const { turn } = await airlineAgent({
      userId: 'lei_rossi_3206',
      steps: [() => call('update_reservation_flights', { reservation_id: 'VAAOXJ', cabin: 'economy', flights, payment_id: 'certificate_5408544' }), () => say('That cannot be paid by certificate.')],
    });
    const refusal = text(await turn('Move VAAOXJ to May 25, pay with my certificate.'), 'update_reservation_flights');
    expect(refusal.split('\n')[0]).toBe(
      'update_reservation_flights is not allowed by the policy: the payment method is a certificate; a flight change must be paid with a gift card or a credit card.',
    );
    expect(refusal).not.toContain('trip_type');
  });
});
