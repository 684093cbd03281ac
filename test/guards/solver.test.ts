import { describe, expect, it } from 'vitest';
import { createFactStore } from '../../src/facts/index.js';
import { createSentinel, fetchKey, type Blocker, type SentinelOptions } from '../../src/guards/index.js';
import { parseRulebase } from '../../src/rules/index.js';
import { createFakeClock } from '../../src/testing/index.js';
import { refundSetup } from './helpers.js';

const kinds = (blockers: readonly Blocker[]) => blockers.map((blocker) => blocker.kind);

function setup(rules: string, tools: SentinelOptions['tools'] = {}, options: Partial<SentinelOptions> = {}) {
  const clock = createFakeClock();
  const facts = createFactStore({ clock });
  const sentinel = createSentinel({ rulebase: parseRulebase(rules, { source: 't.rules' }), facts, tools, ...options });
  return { clock, facts, sentinel };
}

describe('solver: the DESIGN.md refund example', () => {
  const bookings = { BK1: { status: 'cancelled_by_airline', delay_minutes: 0 }, BK2: { status: 'confirmed', delay_minutes: 30 }, BK3: { status: 'confirmed', delay_minutes: 200 } };

  it('is blocked on an unbound context, naming it and its description', async () => {
    const { sentinel } = refundSetup(bookings);
    const result = await sentinel.check('issue_refund', { booking_id: 'BK1' });
    expect(result).toMatchObject({ allowed: false, status: 'blocked' });
    expect(result.blockers).toEqual([{ kind: 'bind-context', name: 'booking_of_interest', description: 'the booking the customer is asking about' }]);
    expect(result.text).toContain('call set_context with name "booking_of_interest"');
  });

  it('is blocked on the askable with its rendered question, then proved once confirmed', async () => {
    const { sentinel, facts } = refundSetup(bookings);
    facts.bind('booking_of_interest', 'BK1');
    const blocked = await sentinel.check('issue_refund', { booking_id: 'BK1' });
    expect(blocked.status).toBe('blocked');
    expect(blocked.blockers[0]).toEqual({ kind: 'ask', predicate: 'customer_confirms', args: ['BK1'], goal: 'customer_confirms("BK1")', question: 'Does the customer confirm the refund for booking BK1?' });
    expect(blocked.text).toContain('call record_confirmation with goal `customer_confirms("BK1")`');
    sentinel.confirm('customer_confirms(booking_of_interest)');
    const proved = await sentinel.check('issue_refund', { booking_id: 'BK1' });
    expect(proved).toMatchObject({ allowed: true, status: 'proved', blockers: [] });
    expect(proved.derivation).toMatchObject({
      goal: 'issue_refund(booking_id: "BK1")',
      by: 'guard',
      source: 'refund.rules:8',
      children: [
        { by: 'comparison' },
        { goal: 'refundable("BK1")', by: 'rule', source: 'refund.rules:6', children: [{ goal: 'booking_status("BK1", cancelled_by_airline)', by: 'fact', source: 'tool:get_booking' }] },
        { goal: 'customer_confirms("BK1")', by: 'askable', source: 'user' },
      ],
    });
  });

  it('proves by the second rule when the first fails (backtracking)', async () => {
    const { sentinel, facts } = refundSetup(bookings);
    facts.bind('booking_of_interest', 'BK3');
    facts.assert('customer_confirms', ['BK3'], { source: 'user' });
    const result = await sentinel.check('issue_refund', { booking_id: 'BK3' });
    expect(result.allowed).toBe(true);
    expect(result.derivation!.children[1]).toMatchObject({ source: 'refund.rules:7' });
  });

  it('fails with the conditions and the facts that failed them', async () => {
    const { sentinel, facts } = refundSetup(bookings);
    facts.bind('booking_of_interest', 'BK2');
    const result = await sentinel.check('issue_refund', { booking_id: 'BK2' });
    expect(result.status).toBe('failed');
    expect(result.blockers).toEqual([
      { kind: 'condition', goal: 'booking_status("BK2", cancelled_by_airline)', condition: 'booking_status(B, "cancelled_by_airline")', line: 6, facts: ['booking_status("BK2", confirmed)'], decisive: true },
      { kind: 'condition', goal: '30 >= 180', condition: 'M >= 180', line: 7, facts: ['flight_delay("BK2", 30)'], decisive: true },
    ]);
    expect(result.text).toMatch(/not allowed by the policy/);
  });

  it('tries every tool-backed condition before asking: no question when the facts already say no', async () => {
    const { facts } = refundSetup(bookings);
    const rules = parseRulebase(`
      context booking_of_interest
      data booking_status(B, S) from get_booking(booking_id: B) -> S = $.status ttl 60s
      askable customer_confirms(B) "Confirm {B}?"
      guard issue_refund(booking_id: B) :- customer_confirms(B), booking_status(B, cancelled_by_airline).
    `);
    const fetched: string[] = [];
    const getBooking = async (args: Record<string, unknown>) => {
      fetched.push(String(args.booking_id));
      return bookings[args.booking_id as keyof typeof bookings];
    };
    const askFirst = createSentinel({ rulebase: rules, facts, tools: { get_booking: { execute: getBooking } } });
    const result = await askFirst.check('issue_refund', { booking_id: 'BK2' });
    expect(result.status).toBe('failed');
    expect(kinds(result.blockers)).not.toContain('ask');
    const allowedLater = await askFirst.check('issue_refund', { booking_id: 'BK1' });
    expect(kinds(allowedLater.blockers)).toEqual(['ask']);
    expect(fetched).toEqual(['BK2', 'BK1']);
  });

  it('answers symbolic queries with every answer', async () => {
    const { sentinel, facts } = refundSetup(bookings);
    facts.bind('booking_of_interest', 'BK2');
    const status = await sentinel.query('booking_status(booking_of_interest, S)');
    expect(status.answers.map((answer) => answer.bindings)).toEqual([{ S: 'confirmed' }]);
    expect(status.text).toBe('Yes: booking_status(booking_of_interest, S) holds for:\n- S = confirmed');
    await sentinel.query('refundable("BK1")');
    await sentinel.query('refundable("BK3")');
    const all = await sentinel.query('refundable(B)');
    expect(all.answers.map((answer) => answer.bindings.B)).toEqual(['BK1', 'BK3']);
    const no = await sentinel.query('refundable("BK2")');
    expect(no.status).toBe('failed');
    expect(no.text).toMatch(/^No: refundable\("BK2"\) does not hold\./);
  });
});

describe('solver: faults in data tools block the proof with the reason, never crash', () => {
  const rules = `
    data status(B, S) from get_booking(id: B) -> S = $.booking.status ttl 60s
    guard cancel(id: B) :- status(B, open).
  `;

  it('a data tool that throws', async () => {
    const { sentinel } = setup(rules, { get_booking: { execute: () => { throw new Error('database down'); } } });
    const result = await sentinel.check('cancel', { id: 'B1' });
    expect(result.status).toBe('blocked');
    expect(result.blockers).toContainEqual({ kind: 'fetch-failed', tool: 'get_booking', args: { id: 'B1' }, reason: 'get_booking failed: database down' });
    expect(result.text).toContain('Could not get data: get_booking failed: database down');
  });

  it('a failed call is made again by the next check (not remembered past the check that failed)', async () => {
    let calls = 0;
    const { sentinel } = setup(rules, {
      get_booking: {
        execute: () => {
          if (++calls === 1) throw new Error('database down');
          return { booking: { status: 'open' } };
        },
      },
    });
    expect((await sentinel.check('cancel', { id: 'B1' })).status).toBe('blocked');
    expect((await sentinel.check('cancel', { id: 'B1' })).allowed).toBe(true);
    expect(calls).toBe(2);
  });

  it('checks after a change to the store see it: remembered calls do not outlive the store version', async () => {
    let status = 'open';
    const { sentinel, facts } = setup(rules, { get_booking: { execute: () => ({ booking: { status } }) } });
    expect((await sentinel.check('cancel', { id: 'B1' })).allowed).toBe(true);
    status = 'closed';
    expect((await sentinel.check('cancel', { id: 'B1' })).allowed).toBe(true); // still fresh in the store: not re-fetched
    facts.recordFetch({ key: fetchKey('get_booking', { id: 'B1' }), tool: 'get_booking', args: { id: 'B1' } }, [{ predicate: 'status', args: ['B1', 'closed'], ttlMs: 60_000 }]);
    expect((await sentinel.check('cancel', { id: 'B1' })).allowed).toBe(false);
  });

  it('a data tool that rejects with a non-Error', async () => {
    const { sentinel } = setup(rules, { get_booking: { execute: () => Promise.reject('nope') } });
    expect((await sentinel.check('cancel', { id: 'B1' })).blockers).toContainEqual(expect.objectContaining({ reason: 'get_booking failed: nope' }));
  });

  it('a data tool that times out (and is told to abort)', async () => {
    let signal: AbortSignal | undefined;
    const { sentinel } = setup(
      rules,
      { get_booking: { execute: (_args, options) => { signal = options.signal; return new Promise(() => {}); } } },
      { fetchTimeoutMs: 250, sleep: async () => {} },
    );
    const result = await sentinel.check('cancel', { id: 'B1' });
    expect(result.blockers).toContainEqual(expect.objectContaining({ kind: 'fetch-failed', reason: 'get_booking did not answer within 250 ms' }));
    expect(signal?.aborted).toBe(true);
  });

  it('a data tool that times out with the real timer', async () => {
    const { sentinel } = setup(rules, { get_booking: { execute: () => new Promise(() => {}) } }, { fetchTimeoutMs: 20 });
    const result = await sentinel.check('cancel', { id: 'B1' });
    expect(result.blockers).toContainEqual(expect.objectContaining({ reason: 'get_booking did not answer within 20 ms' }));
  });

  it('a result the JSON path does not match, and the reason stays until the fetch expires', async () => {
    let fetched = 0;
    const { sentinel, clock } = setup(rules, { get_booking: { execute: () => { fetched++; return { booking: 'not an object' }; } } });
    const first = await sentinel.check('cancel', { id: 'B1' });
    expect(first.status).toBe('blocked');
    expect(first.blockers).toContainEqual(expect.objectContaining({ kind: 'fetch-failed', reason: 'get_booking result does not fit $.booking.status: $.booking is string "not an object", not an object with \'status\'' }));
    const again = await sentinel.check('cancel', { id: 'B1' });
    expect(again.blockers).toEqual(first.blockers);
    expect(fetched).toBe(1);
    clock.advance(60_000);
    await sentinel.check('cancel', { id: 'B1' });
    expect(fetched).toBe(2);
  });

  it('JSON given as text is read as JSON', async () => {
    const { sentinel } = setup(rules, { get_booking: { execute: () => '{"booking": {"status": "open"}}' } });
    expect((await sentinel.check('cancel', { id: 'B1' })).allowed).toBe(true);
  });

  it('fanned-out paths with different lengths', async () => {
    const { sentinel } = setup(
      `data leg(B, F, D) from get_booking(id: B) -> F = $.flights[*].n, D = $.dates ttl 60s
       guard cancel(id: B) :- leg(B, _F, _D).`,
      { get_booking: { execute: () => ({ flights: [{ n: 1 }, { n: 2 }], dates: ['a'] }) } },
    );
    expect((await sentinel.check('cancel', { id: 'B1' })).blockers).toContainEqual(expect.objectContaining({ kind: 'fetch-failed', reason: expect.stringContaining('different numbers of elements (2 and 1)') }));
  });

  it('a negation over data that could not be fetched does not succeed', async () => {
    const { sentinel } = setup(
      `data flown(B, F) from get_booking(id: B) -> F = $.flown ttl 60s
       guard cancel(id: B) :- not flown(B, true).`,
      { get_booking: { execute: () => { throw new Error('down'); } } },
    );
    const result = await sentinel.check('cancel', { id: 'B1' });
    expect(result).toMatchObject({ allowed: false, status: 'blocked' });
    expect(kinds(result.blockers)).toContain('fetch-failed');
  });
});

describe('solver: facts, time and context', () => {
  it('an expired fact is re-fetched, not reused', async () => {
    const db = { BK1: { status: 'cancelled_by_airline', delay_minutes: 0 } };
    const { sentinel, facts, calls, clock } = refundSetup(db);
    facts.bind('booking_of_interest', 'BK1');
    facts.assert('customer_confirms', ['BK1'], { source: 'user' });
    expect((await sentinel.check('issue_refund', { booking_id: 'BK1' })).allowed).toBe(true);
    clock.advance(59_999);
    expect((await sentinel.check('issue_refund', { booking_id: 'BK1' })).allowed).toBe(true);
    expect(calls).toEqual(['BK1']);
    db.BK1.status = 'confirmed';
    clock.advance(1);
    const after = await sentinel.check('issue_refund', { booking_id: 'BK1' });
    expect(calls).toEqual(['BK1', 'BK1']);
    expect(after.allowed).toBe(false);
    expect(facts.facts('booking_status').map((fact) => fact.args)).toEqual([['BK1', 'confirmed']]);
  });

  it('one fetch fills every predicate its tool backs', async () => {
    const { sentinel, facts, calls } = refundSetup({ BK1: { status: 'confirmed', delay_minutes: 5 } });
    await sentinel.query('booking_status("BK1", S)');
    expect(facts.facts('flight_delay')).toHaveLength(1);
    await sentinel.query('flight_delay("BK1", M)');
    expect(calls).toEqual(['BK1']);
  });

  it('a context variable rebound mid-conversation: old derived results no longer apply', async () => {
    const { sentinel, facts } = refundSetup({ BK1: { status: 'cancelled_by_airline', delay_minutes: 0 }, BK2: { status: 'confirmed', delay_minutes: 0 } });
    facts.bind('booking_of_interest', 'BK1');
    expect((await sentinel.query('refundable(booking_of_interest)')).status).toBe('proved');
    expect(facts.derived().map((derived) => derived.args)).toEqual([['BK1']]);
    facts.bind('booking_of_interest', 'BK2');
    expect(facts.derived()).toEqual([]);
    const now = await sentinel.query('refundable(booking_of_interest)');
    expect(now.status).toBe('failed');
    expect(now.blockers[0]).toMatchObject({ goal: 'booking_status("BK2", cancelled_by_airline)' });
    facts.assert('customer_confirms', ['BK1'], { source: 'user' });
    const oldBooking = await sentinel.check('issue_refund', { booking_id: 'BK1' });
    expect(oldBooking.allowed).toBe(false);
    expect(oldBooking.blockers).toContainEqual(expect.objectContaining({ kind: 'condition', goal: '"BK1" = "BK2"' }));
  });

  it('derived results become invalid when a base fact they used expires', async () => {
    const { sentinel, facts, clock } = refundSetup({ BK1: { status: 'cancelled_by_airline', delay_minutes: 0 } });
    await sentinel.query('refundable("BK1")');
    expect(facts.derived()).toHaveLength(1);
    clock.advance(60_000);
    expect(facts.derived()).toEqual([]);
  });

  it('contradictory facts block instead of picking one', async () => {
    const { sentinel, facts } = refundSetup({ BK1: { status: 'cancelled_by_airline', delay_minutes: 0 } });
    facts.assert('booking_status', ['BK1', 'confirmed'], { source: 'crm-import' });
    facts.bind('booking_of_interest', 'BK1');
    facts.assert('customer_confirms', ['BK1'], { source: 'user' });
    const result = await sentinel.check('issue_refund', { booking_id: 'BK1' });
    expect(result.status).toBe('blocked');
    expect(result.blockers).toContainEqual({
      kind: 'contradiction',
      goal: 'booking_status("BK1", _)',
      facts: ['booking_status("BK1", confirmed) (crm-import)', 'booking_status("BK1", cancelled_by_airline) (tool:get_booking)'],
    });
    expect(result.text).toContain('Conflicting facts');
  });

  it('a list result yields one fact per element, which is not a contradiction', async () => {
    const { sentinel, facts } = setup(
      `context current_user
       data reservation_of(U, R) from get_user(user_id: U) -> R = $.reservations ttl 60s
       guard cancel(reservation_id: R) :- reservation_of(current_user, R).`,
      { get_user: { execute: () => ({ reservations: ['A1', 'B2', 'C3'] }) } },
    );
    facts.bind('current_user', 'mia');
    expect((await sentinel.check('cancel', { reservation_id: 'B2' })).allowed).toBe(true);
    expect(facts.facts('reservation_of')).toHaveLength(3);
    const foreign = await sentinel.check('cancel', { reservation_id: 'Z9' });
    expect(foreign.status).toBe('failed');
    expect(foreign.blockers[0]).toMatchObject({ goal: 'reservation_of(mia, "Z9")', facts: ['reservation_of(mia, "A1")', 'reservation_of(mia, "B2")', 'reservation_of(mia, "C3")'] });
  });

  it('hours_since reads the injected clock, and results that read it are not cached', async () => {
    const { sentinel, facts, clock } = setup(`fact created(r1, "2026-01-01T00:00:00").
      rule recent(R) :- created(R, T), hours_since(T, H), H < 24.`);
    clock.set(Date.UTC(2026, 0, 1, 23, 59));
    expect((await sentinel.query('recent(r1)')).status).toBe('proved');
    expect(facts.derived()).toEqual([]);
    clock.set(Date.UTC(2026, 0, 2, 0, 0));
    expect((await sentinel.query('recent(r1)')).blockers[0]).toMatchObject({ goal: '24 < 24' });
  });
});

describe('solver: language features', () => {
  it('arithmetic, comparisons of numbers and ISO dates, inequality', async () => {
    const { sentinel } = setup(`fact pax(r1, 3).
      rule amount(R, A) :- pax(R, N), A = 100 * N - 0 / 1.
      rule before(D) :- D < "2024-05-15", D != "2024-01-01".`);
    expect((await sentinel.query('amount(r1, A)')).answers[0]!.bindings).toEqual({ A: 300 });
    expect((await sentinel.query('amount(r1, 300)')).status).toBe('proved');
    expect((await sentinel.query('amount(r1, 200)')).status).toBe('failed');
    expect((await sentinel.query('before("2024-05-01")')).status).toBe('proved');
    expect((await sentinel.query('before("2024-06-01")')).status).toBe('failed');
    expect((await sentinel.query('X = 1 / 0')).status).toBe('failed');
  });

  it('membership and object patterns over tool arguments', async () => {
    const { sentinel } = setup(`fact booked(r1, "HAT001", "2024-05-20").
      rule changes(R, Fs) :- {flight_number: N, date: D} in Fs, not booked(R, N, D).
      guard update(reservation_id: R, flights: Fs) :- length(Fs, L), L > 0, not changes(R, Fs).`);
    expect((await sentinel.check('update', { reservation_id: 'r1', flights: [{ flight_number: 'HAT001', date: '2024-05-20', extra: 1 }] })).allowed).toBe(true);
    const changed = await sentinel.check('update', { reservation_id: 'r1', flights: [{ flight_number: 'HAT001', date: '2024-05-20' }, { flight_number: 'HAT002', date: '2024-05-21' }] });
    expect(changed.allowed).toBe(false);
    expect(changed.blockers[0]).toMatchObject({ goal: expect.stringMatching(/^not changes/), facts: ['not booked(r1, "HAT002", "2024-05-21")'] });
    expect((await sentinel.query('X in [a, b, c], X != a')).answers.map((answer) => answer.bindings.X)).toEqual(['b', 'c']);
  });

  it('guards with several clauses are alternatives; a missing argument is named', async () => {
    const { sentinel } = setup(`fact admin(root).
      guard drop(user: U) :- admin(U).
      guard drop(user: U, force: true) :- U != root.`);
    expect((await sentinel.check('drop', { user: 'root' })).allowed).toBe(true);
    expect((await sentinel.check('drop', { user: 'bob', force: true })).allowed).toBe(true);
    const result = await sentinel.check('drop', { user: 'bob' });
    expect(result.blockers).toContainEqual({ kind: 'missing-argument', parameter: 'force' });
  });

  it('negation as failure on ground goals; floundering is reported, not guessed', async () => {
    const { sentinel } = setup(`fact banned(eve).
      rule ok(U) :- U = U, not banned(U).`);
    expect((await sentinel.query('ok(bob)')).status).toBe('proved');
    expect((await sentinel.query('ok(eve)')).blockers[0]).toMatchObject({ goal: 'not banned(eve)', facts: ['banned(eve)'] });
    expect((await sentinel.query('not banned(X)')).blockers[0]).toMatchObject({ goal: expect.stringContaining('negation needs a ground goal') });
  });
});

describe('solver: recursion terminates and says so', () => {
  it('a guard whose proof would recurse forever (p :- p)', async () => {
    const { sentinel } = setup(`rule loop(X) :- loop(X).\nguard go(id: X) :- loop(X).`);
    const result = await sentinel.check('go', { id: 1 });
    expect(result.status).toBe('blocked');
    expect(result.blockers).toContainEqual({ kind: 'limit', reason: 'the proof of loop depends on itself (recursion cut)', goal: 'loop(1)' });
  });

  it('mutual recursion', async () => {
    const { sentinel } = setup(`rule a(X) :- b(X).\nrule b(X) :- a(X).\nguard go(id: X) :- a(X).`);
    expect(kinds((await sentinel.check('go', { id: 1 })).blockers)).toEqual(['limit']);
  });

  it('recursion that builds ever new goals stops at the depth bound', async () => {
    const { sentinel } = setup(`rule count(N) :- M = N + 1, count(M).\nguard go(n: N) :- count(N).`, {}, { maxDepth: 30 });
    const result = await sentinel.check('go', { n: 0 });
    expect(result.blockers).toContainEqual(expect.objectContaining({ kind: 'limit', reason: 'the proof went deeper than 30 rules' }));
  });

  it('an exponential search stops at the step budget', async () => {
    const { sentinel } = setup(`fact d(1). fact d(2). fact d(3). fact d(4).
      rule deep(A,B,C,E,F,G,H) :- d(A), d(B), d(C), d(E), d(F), d(G), d(H), A > 9.
      guard go :- deep(_A,_B,_C,_E,_F,_G,_H).`, {}, { maxSteps: 2000 });
    const result = await sentinel.check('go', {});
    expect(result.blockers).toContainEqual(expect.objectContaining({ kind: 'limit', reason: 'the proof search gave up after 2000 steps' }));
  });

  it('right recursion over a cyclic graph finds every reachable node', async () => {
    const { sentinel } = setup(`fact edge(a, b). fact edge(b, c). fact edge(c, a). fact edge(c, d).
      rule reach(X, Y) :- edge(X, Y).
      rule reach(X, Y) :- edge(X, Z), reach(Z, Y).`);
    const result = await sentinel.query('reach(a, Y)');
    expect(result.answers.map((answer) => answer.bindings.Y).sort()).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('solver: data tools', () => {
  it('fetches independent data tools concurrently', async () => {
    let running = 0;
    let peak = 0;
    const slow = (value: string) => ({
      execute: async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 40));
        running--;
        return { value };
      },
    });
    const { sentinel } = setup(
      `data a(K, V) from tool_a(key: K) -> V = $.value ttl 60s
       data b(K, V) from tool_b(key: K) -> V = $.value ttl 60s
       data c(K, V) from tool_c(key: K) -> V = $.value ttl 60s
       rule all_ok(K) :- a(K, ok), b(K, ok).
       guard act(key: K) :- all_ok(K), c(K, ok).`,
      { tool_a: slow('ok'), tool_b: slow('ok'), tool_c: slow('ok') },
    );
    const started = performance.now();
    const result = await sentinel.check('act', { key: 'k1' });
    const elapsed = performance.now() - started;
    expect(result.allowed).toBe(true);
    expect(peak).toBe(3);
    expect(elapsed).toBeLessThan(110);
  });

  it("the solver's own fetches are guarded too", async () => {
    const fetched: string[] = [];
    const { sentinel, facts } = setup(
      `context current_user
       data owner(R, U) from get_reservation(id: R) -> U = $.user ttl 60s
       data reservations(U, R) from get_user(user_id: U) -> R = $.reservations ttl 60s
       guard get_reservation(id: R) :- reservations(current_user, R).
       guard cancel(id: R) :- owner(R, current_user).`,
      {
        get_user: { execute: () => ({ reservations: ['R1'] }) },
        get_reservation: { execute: (args) => { fetched.push(String(args.id)); return { user: 'mia' }; } },
      },
    );
    facts.bind('current_user', 'mia');
    expect((await sentinel.check('cancel', { id: 'R1' })).allowed).toBe(true);
    const foreign = await sentinel.check('cancel', { id: 'R9' });
    expect(foreign.blockers).toContainEqual(expect.objectContaining({ kind: 'fetch-failed', tool: 'get_reservation', reason: 'the guard of get_reservation does not allow this call' }));
    expect(fetched).toEqual(['R1']);
    expect((await sentinel.check('get_reservation', { id: 'R9' })).allowed).toBe(false);
  });

  it('a data tool whose guard needs its own result is a cycle, reported', async () => {
    const { sentinel } = setup(
      `data status(R, S) from get(id: R) -> S = $.s ttl 60s
       guard get(id: R) :- status(R, _S).
       guard act(id: R) :- status(R, ok).`,
      { get: { execute: () => ({ s: 'ok' }) } },
    );
    const result = await sentinel.check('act', { id: 1 });
    expect(result.blockers).toContainEqual(expect.objectContaining({ kind: 'fetch-failed', reason: expect.stringContaining('does not allow') }));
  });

  it('one call never runs the same tool call twice, even when many conditions need it', async () => {
    let count = 0;
    const { sentinel } = setup(
      `data s(K, V) from get(key: K) -> V = $.v ttl 1s
       rule r1(K) :- s(K, 1).
       rule r2(K) :- s(K, 2).
       guard act(key: K) :- r1(K).
       guard act(key: K) :- r2(K).`,
      { get: { execute: async () => { count++; return { v: 2 }; } } },
    );
    expect((await sentinel.check('act', { key: 'x' })).allowed).toBe(true);
    expect(count).toBe(1);
  });
});
