/**
 * Guarded tools (DESIGN.md section 13): a guard check with every fact cached on the airline rulebase, a proof that
 * needs three independent 50 ms data tools (against fetching them one after another), solver cost as the fact
 * store grows to 100,000 facts, and the invalidation a write causes in a store of 100,000 facts (issue 14).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createAirlineSession } from '../examples/airline/sentinel.js';
import { createFactStore, createSentinel, fetchKey, guardToolCall, noteWorkflowStates, parseRulebase, type ConversationTurn } from 'panoptes';
import { createFakeClock } from 'panoptes/testing';
import { measure, measureAsync, type BenchRow } from './harness.js';

const SUITE = 'guards';

/** Runs the guard benchmarks; `npm run bench -- guards` runs only these. */
export async function guardsBench(): Promise<BenchRow[]> {
  return [...(await cachedAirlineChecks()), ...(await groundedAirlineChecks()), ...(await concurrentFetches()), ...(await storeGrowth()), ...writeInvalidation()];
}

/**
 * A booking under the airline rules' grounded confirmation and insurance duty, checked the way the adapters do
 * (`guardToolCall` with the conversation so far, 20 turns): the yes is read from the conversation once, then every
 * fact is cached. And a call with another cabin than the one restated, refused each time after comparing its
 * arguments with the message the user answered.
 */
async function groundedAirlineChecks(): Promise<BenchRow[]> {
  const { sentinel, facts } = await createAirlineSession({ userId: 'emma_smith_9363' });
  noteWorkflowStates(facts, ['offered_insurance']);
  const booking = {
    user_id: 'emma_smith_9363', origin: 'DEN', destination: 'CLT', flight_type: 'one_way', cabin: 'economy',
    flights: [{ flight_number: 'HAT158', date: '2024-05-20' }, { flight_number: 'HAT016', date: '2024-05-20' }],
    passengers: [{ first_name: 'Emma', last_name: 'Smith', dob: '1987-01-01' }],
    payment_methods: [{ payment_id: 'credit_card_4253816', amount: 324 }], total_baggages: 1, nonfree_baggages: 0, insurance: 'no',
  };
  const conversation: ConversationTurn[] = [];
  for (let turn = 0; turn < 9; turn++) conversation.push({ role: 'user', text: `Question ${turn} about my trip.` }, { role: 'assistant', text: `Answer ${turn}.` });
  conversation.push(
    { role: 'assistant', text: 'Booking for Emma Smith (born 1987-01-01): HAT158 and HAT016 on May 20, economy, 1 checked bag, no insurance, $324 on credit card 4253816. Shall I go ahead (yes/no)?' },
    { role: 'user', text: 'Yes, please.' },
  );
  const call = { id: 'b1', name: 'book_reservation', args: booking };
  if (!(await guardToolCall(call, { sentinel, conversation })).allowed) throw new Error('bench setup: the grounded booking should be allowed');
  const other = { id: 'b2', name: 'book_reservation', args: { ...booking, cabin: 'business' } };
  if ((await guardToolCall(other, { sentinel, conversation })).allowed) throw new Error('bench setup: another cabin should be refused');
  const rows: BenchRow[] = [];
  for (const [name, toolCall] of [
    ['airline book_reservation, grounded yes and insurance duty, 20-turn conversation, facts cached (proved)', call],
    ['airline book_reservation, another cabin than restated, facts cached (refused, unstated named)', other],
  ] as const) {
    const stats = await measureAsync(() => guardToolCall(toolCall, { sentinel, conversation }), { samples: 3000, warmup: 5000 });
    rows.push({ suite: SUITE, name, ...stats, target: 'p50 <= 100 us', met: stats.p50Us <= 100 });
  }
  return rows;
}

async function cachedAirlineChecks(): Promise<BenchRow[]> {
  const { sentinel, facts } = await createAirlineSession({ userId: 'chen_jackson_3290' });
  facts.assert('cancellation_reason', ['4WQ150', 'change_of_plan'], { source: 'user' });
  const cancel = { reservation_id: '4WQ150' };
  const baggage = { reservation_id: '4WQ150', total_baggages: 9, nonfree_baggages: 0, payment_id: 'gift_card_3576581' };
  // The customer's yes to these exact calls (confirmations are bound to the call they confirm).
  sentinel.recordApproval(await sentinel.check('cancel_reservation', cancel));
  sentinel.recordApproval(await sentinel.check('update_reservation_baggages', baggage));
  // First calls fetch; everything after is served from the fact store (the clock is fixed, nothing expires).
  if (!(await sentinel.check('cancel_reservation', cancel)).allowed) throw new Error('bench setup: cancel should be allowed');
  if (!(await sentinel.check('update_reservation_baggages', baggage)).allowed) throw new Error('bench setup: baggage should be allowed');
  const rows: BenchRow[] = [];
  for (const [name, tool, args] of [
    ['airline cancel_reservation, all facts cached (proved)', 'cancel_reservation', cancel],
    ['airline update_reservation_baggages, all facts cached (proved)', 'update_reservation_baggages', baggage],
    ["airline cancel_reservation of another customer's reservation, cached (refused, explained)", 'cancel_reservation', { reservation_id: 'NOPE00' }],
  ] as const) {
    // A long warm-up: the steady state of a long conversation, after the engine has optimised the solver.
    const stats = await measureAsync(() => sentinel.check(tool, args), { samples: 3000, warmup: 5000 });
    rows.push({ suite: SUITE, name, ...stats, target: 'p50 <= 100 us', met: stats.p50Us <= 100 });
  }
  return rows;
}

const THREE_TOOLS = `
data a(K, V) from tool_a(key: K) -> V = $.value ttl 60s
data b(K, V) from tool_b(key: K) -> V = $.value ttl 60s
data c(K, V) from tool_c(key: K) -> V = $.value ttl 60s
rule checked(K) :- a(K, ok), b(K, ok).
guard act(key: K) :- checked(K), c(K, ok).
`;

async function concurrentFetches(): Promise<BenchRow[]> {
  const slowTool = { execute: async () => (await sleep(50), { value: 'ok' }) };
  const tools = { tool_a: slowTool, tool_b: slowTool, tool_c: slowTool };
  const rulebase = parseRulebase(THREE_TOOLS);
  const facts = createFactStore({ clock: createFakeClock() });
  const sentinel = createSentinel({ rulebase, facts, tools });
  // A new key each time, so every proof has to fetch all three.
  const concurrent = await measureAsync(
    async (index) => {
      const result = await sentinel.check('act', { key: `k${index}` });
      if (!result.allowed) throw new Error('bench: proof failed');
    },
    { samples: 30, warmup: 3 },
  );
  const sequential = await measureAsync(
    async () => {
      for (const tool of Object.values(tools)) await tool.execute();
    },
    { samples: 30, warmup: 3 },
  );
  return [
    { suite: SUITE, name: 'proof needing three independent 50 ms data tools (solver)', ...concurrent, extra: { vsSequential: round(sequential.p50Us / concurrent.p50Us) }, target: 'wall p50 <= 60 ms', met: concurrent.p50Us <= 60_000 },
    { suite: SUITE, name: 'baseline: the same three tools fetched one after another', ...sequential },
  ];
}

async function storeGrowth(): Promise<BenchRow[]> {
  const rules = parseRulebase(`
    context current_user
    data owner(I, U) from get_item(id: I) -> U = $.owner ttl 1h
    data state(I, S) from get_item(id: I) -> S = $.state ttl 1h
    guard close(id: I) :- owner(I, current_user), state(I, open).
  `);
  const rows: BenchRow[] = [];
  let smallest: number | undefined;
  for (const size of [100, 1_000, 10_000, 100_000]) {
    const facts = createFactStore({ clock: createFakeClock(), seed: { context: { current_user: 'mia' } } });
    // Two facts per item, so the store holds `size` facts.
    for (let item = 0; item < size / 2; item++) {
      facts.recordFetch({ key: fetchKey('get_item', { id: item }), tool: 'get_item', args: { id: item } }, [
        { predicate: 'owner', args: [item, item % 7 === 0 ? 'mia' : 'bob'], ttlMs: 3_600_000 },
        { predicate: 'state', args: [item, 'open'], ttlMs: 3_600_000 },
      ]);
    }
    const sentinel = createSentinel({ rulebase: rules, facts, tools: { get_item: { execute: () => ({}) } } });
    const stats = await measureAsync((index) => sentinel.check('close', { id: (index * 7) % (size / 2) }), { samples: 2000, warmup: 200 });
    // Unchanged, the summary comes from the cache; after any change (here a context rebound) it is rendered again.
    const summarizeCached = measure(() => facts.summarize(), { samples: 200, warmup: 5 });
    const summarize = measure(
      (index) => {
        facts.bind('current_user', index % 2 === 0 ? 'mia' : 'bob');
        facts.summarize();
      },
      { samples: 20, warmup: 2 },
    );
    smallest ??= stats.p50Us;
    rows.push({
      suite: SUITE,
      name: `guard check, fact store of ${size.toLocaleString('en')} facts`,
      ...stats,
      extra: { facts: size, ratioToSmallest: round(stats.p50Us / smallest), summarizeAfterChangeP50Us: round(summarize.p50Us), summarizeCachedP50Us: round(summarizeCached.p50Us) },
      ...(size === 100_000 ? { target: 'same cost at 100,000 facts as at 100 (ratio <= 1.5)', met: stats.p50Us / smallest <= 1.5 } : {}),
    });
  }
  return rows;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/**
 * What a successful write costs the sentinel in a store of 100,000 facts: dropping the facts of the data call it
 * changed (and, with them, every conclusion drawn from them). The baseline finds the same facts by scanning the store.
 */
function writeInvalidation(): BenchRow[] {
  const rules = parseRulebase(`
    data owner(I, U) from get_item(id: I) -> U = $.owner ttl 1h
    data state(I, S) from get_item(id: I) -> S = $.state ttl 1h
    write close(id: I) invalidates get_item(id: I).
    guard close(id: I) :- state(I, open).
  `);
  const size = 100_000;
  const fill = () => {
    const facts = createFactStore({ clock: createFakeClock() });
    for (let item = 0; item < size / 2; item++) {
      facts.recordFetch({ key: fetchKey('get_item', { id: item }), tool: 'get_item', args: { id: item } }, [
        { predicate: 'owner', args: [item, 'mia'], ttlMs: 3_600_000 },
        { predicate: 'state', args: [item, 'open'], ttlMs: 3_600_000 },
      ]);
    }
    return facts;
  };
  const facts = fill();
  const sentinel = createSentinel({ rulebase: rules, facts, tools: { get_item: { execute: () => ({}) } } });
  // Each sample is a write to another item, so each drops two facts that are there.
  const invalidate = measure((index) => sentinel.recordResult('close', { id: index }, { ok: true, result: { closed: true } }), { samples: 2000, warmup: 200 });
  if (facts.facts('state').length !== size / 2 - 2200) throw new Error('bench: invalidation did not drop the facts');
  const scanned = fill();
  const scan = measure(
    (index) => {
      for (const fact of scanned.facts()) if (fact.args[0] === index && fact.source === 'tool:get_item') scanned.retract(fact.predicate, fact.args);
    },
    { samples: 20, warmup: 2 },
  );
  return [
    { suite: SUITE, name: 'invalidation after a write, fact store of 100,000 facts', ...invalidate, extra: { facts: size, vsScanP50: round(scan.p50Us / invalidate.p50Us) }, target: 'p50 <= 20 us', met: invalidate.p50Us <= 20 },
    { suite: SUITE, name: 'baseline: the same facts found by scanning the store', ...scan, extra: { facts: size } },
  ];
}
