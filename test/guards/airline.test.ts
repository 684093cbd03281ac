import { describe, expect, it } from 'vitest';
import { createAirlineSession } from '../../examples/airline/sentinel.js';
import { createPolicyTools, exchangeOf, type Sentinel } from '../../src/guards/index.js';

/** The customer said yes to this exact call: the confirmations its check asks for, recorded for it. */
async function approve(sentinel: Sentinel, tool: string, args: Record<string, unknown>) {
  return sentinel.recordApproval(await sentinel.check(tool, args));
}

/** The customer gave a reason and said yes: what a finished conversation has established before the write. */
async function cancelWith(userId: string, reservation: string, reason: string) {
  const { sentinel, facts, db } = await createAirlineSession({ userId });
  facts.assert('cancellation_reason', [reservation, reason], { source: 'user' });
  await approve(sentinel, 'cancel_reservation', { reservation_id: reservation });
  return { result: await sentinel.check('cancel_reservation', { reservation_id: reservation }), db };
}

describe('airline policy: cancellation', () => {
  it('asks for the reason and a yes before cancelling, having checked everything else first', async () => {
    const { sentinel } = await createAirlineSession({ userId: 'emma_smith_9363' });
    const result = await sentinel.check('cancel_reservation', { reservation_id: '1YVFB9' });
    expect(result.status).toBe('blocked');
    expect(result.blockers.filter((blocker) => blocker.kind === 'ask').map((blocker) => (blocker as { goal: string }).goal)).toEqual([
      'cancellation_reason("1YVFB9", _Reason)',
      expect.stringMatching(/^confirms_cancellation\("1YVFB9", "cancel_reservation#[0-9a-z]+"\)$/),
    ]);
  });

  it('allows any cabin within 24 hours of booking (1YVFB9, economy, booked 16 hours ago)', async () => {
    expect((await cancelWith('emma_smith_9363', '1YVFB9', 'change_of_plan')).result.allowed).toBe(true);
  });

  it('refuses economy without insurance after 24 hours (VAAOXJ), saying why', async () => {
    const { result } = await cancelWith('lei_rossi_3206', 'VAAOXJ', 'change_of_plan');
    expect(result).toMatchObject({ allowed: false, status: 'failed' });
    const goals = result.blockers.map((blocker) => (blocker as { goal: string }).goal);
    expect(goals).toContain('cabin("VAAOXJ", business)');
    expect(goals).toContain('insurance("VAAOXJ", yes)');
    expect(result.text).toMatch(/not allowed by the policy/);
  });

  it('allows business at any time (JP6LYC)', async () => {
    expect((await cancelWith('emma_nguyen_9431', 'JP6LYC', 'change_of_plan')).result.allowed).toBe(true);
  });

  it('allows insured economy for health or weather (CDXEBS), not for a change of plan', async () => {
    expect((await cancelWith('harper_garcia_8677', 'CDXEBS', 'health')).result.allowed).toBe(true);
    expect((await cancelWith('harper_garcia_8677', 'CDXEBS', 'change_of_plan')).result.allowed).toBe(false);
  });

  it('allows any reservation whose flight the airline cancelled (521ARH)', async () => {
    const { result } = await cancelWith('isabella_davis_2143', '521ARH', 'airline_cancelled_flight');
    expect(result.allowed).toBe(true);
    expect(JSON.stringify(result.derivation)).toContain('flight(\\"HAT231\\", \\"2024-05-09\\", \\"EWR\\", \\"DFW\\", cancelled)');
  });

  it('refuses a trip with a flown segment, even in business (LLNC0G)', async () => {
    const { result } = await cancelWith('ethan_garcia_8768', 'LLNC0G', 'change_of_plan');
    expect(result.allowed).toBe(false);
    expect(result.blockers[0]).toMatchObject({ goal: 'not segment_used("LLNC0G")' });
  });

  it("refuses another customer's reservation", async () => {
    const { result } = await cancelWith('emma_smith_9363', 'JP6LYC', 'change_of_plan');
    expect(result).toMatchObject({ allowed: false, status: 'failed' });
    expect(result.blockers[0]).toMatchObject({ goal: 'user_reservation(emma_smith_9363, "JP6LYC")', facts: ['user_reservation(emma_smith_9363, "1YVFB9")'] });
  });
});

describe('airline policy: flight and cabin changes', () => {
  /** A session in which the customer said yes to every call `check` is given (each one, exactly). */
  const confirm = async (userId: string) => {
    const session = await createAirlineSession({ userId });
    const check = async (tool: string, args: Record<string, unknown>) => {
      await approve(session.sentinel, tool, args);
      return session.sentinel.check(tool, args);
    };
    return { ...session, check };
  };

  it('refuses to change the flights of basic economy (T1QOBS)', async () => {
    const { check } = await confirm('harper_lopez_1489');
    const result = await check('update_reservation_flights', { reservation_id: 'T1QOBS', cabin: 'basic_economy', flights: [{ flight_number: 'HAT060', date: '2024-05-27' }], payment_id: 'credit_card_9875103' });
    expect(result.allowed).toBe(false);
    expect(result.blockers.map((blocker) => (blocker as { goal: string }).goal)).toContain('basic_economy != basic_economy');
    expect(result.text.split('\n')[0]).toBe('update_reservation_flights is not allowed by the policy: T1QOBS is basic economy: its flights cannot be changed (its cabin can, on the same flights).');
  });

  it('refuses a cabin change once a segment has flown (LLNC0G, flown on 2024-05-09; issue 14)', async () => {
    const { check } = await confirm('ethan_garcia_8768');
    const same = [{ flight_number: 'HAT072', date: '2024-05-09' }, { flight_number: 'HAT026', date: '2024-05-09' }];
    const result = await check('update_reservation_flights', { reservation_id: 'LLNC0G', cabin: 'economy', flights: same, payment_id: 'credit_card_2576367' });
    expect(result.allowed).toBe(false);
    expect(result.text.split('\n')[0]).toBe('update_reservation_flights is not allowed by the policy: a flight of LLNC0G has already flown, so its cabin cannot be changed.');
  });

  it('allows basic economy to change cabin on the same flights (T1QOBS)', async () => {
    const { check } = await confirm('harper_lopez_1489');
    const result = await check('update_reservation_flights', { reservation_id: 'T1QOBS', cabin: 'economy', flights: [{ flight_number: 'HAT060', date: '2024-05-26' }], payment_id: 'credit_card_9875103' });
    expect(result.allowed).toBe(true);
  });

  it('allows economy to move to the same route on another day, paid by credit card (VAAOXJ)', async () => {
    const { check } = await confirm('lei_rossi_3206');
    const flights = [{ flight_number: 'HAT287', date: '2024-05-25' }, { flight_number: 'HAT235', date: '2024-05-25' }];
    expect((await check('update_reservation_flights', { reservation_id: 'VAAOXJ', cabin: 'economy', flights, payment_id: 'credit_card_1052991' })).allowed).toBe(true);
    const byCertificate = await check('update_reservation_flights', { reservation_id: 'VAAOXJ', cabin: 'economy', flights, payment_id: 'certificate_5408544' });
    expect(byCertificate.allowed).toBe(false);
    const notInProfile = await check('update_reservation_flights', { reservation_id: 'VAAOXJ', cabin: 'economy', flights, payment_id: 'credit_card_0000000' });
    expect(notInProfile.allowed).toBe(false);
  });

  it('refuses a change that alters the destination (VAAOXJ to HAT287 only, ending in BOS)', async () => {
    const { check } = await confirm('lei_rossi_3206');
    const result = await check('update_reservation_flights', { reservation_id: 'VAAOXJ', cabin: 'economy', flights: [{ flight_number: 'HAT287', date: '2024-05-25' }], payment_id: 'credit_card_1052991' });
    expect(result.allowed).toBe(false);
  });

  it('refuses a new segment that is not available, and one that does not exist', async () => {
    const { check } = await confirm('lei_rossi_3206');
    const past = await check('update_reservation_flights', { reservation_id: 'VAAOXJ', cabin: 'economy', flights: [{ flight_number: 'HAT287', date: '2024-05-02' }, { flight_number: 'HAT235', date: '2024-05-24' }], payment_id: 'credit_card_1052991' });
    expect(past.allowed).toBe(false);
    const invented = await check('update_reservation_flights', { reservation_id: 'VAAOXJ', cabin: 'economy', flights: [{ flight_number: 'HAT999', date: '2024-05-25' }], payment_id: 'credit_card_1052991' });
    expect(invented.allowed).toBe(false);
  });
});

describe('airline policy: baggage, passengers, certificates', () => {
  it('baggage: add with the right number of paid bags; never remove', async () => {
    const { sentinel } = await createAirlineSession({ userId: 'lei_rossi_3206' });
    const bags = async (total: number, nonfree: number) => {
      const args = { reservation_id: 'VAAOXJ', total_baggages: total, nonfree_baggages: nonfree, payment_id: 'credit_card_1052991' };
      await approve(sentinel, 'update_reservation_baggages', args);
      return sentinel.check('update_reservation_baggages', args);
    };
    // Regular member, economy, one passenger: one free bag.
    expect((await bags(3, 2)).allowed).toBe(true);
    const wrongCount = await bags(3, 0);
    expect(wrongCount.allowed).toBe(false);
    // The decisive reason, in the rule's words with the values, not only the comparison that failed (issue 14).
    expect(wrongCount.text.split('\n')[0]).toBe('update_reservation_baggages is not allowed by the policy: 3 bags with 1 free (membership, cabin and passengers of VAAOXJ) means 2 paid bags, not 0.');
    expect((await bags(0, 0)).text).toContain('bags can be added but not removed: VAAOXJ has 1, the call asks for 0.');
  });

  it('baggage: silver business with three passengers has nine free bags (4WQ150)', async () => {
    const { sentinel } = await createAirlineSession({ userId: 'chen_jackson_3290' });
    const args = { reservation_id: '4WQ150', total_baggages: 9, nonfree_baggages: 0, payment_id: 'gift_card_3576581' };
    await approve(sentinel, 'update_reservation_baggages', args);
    expect((await sentinel.check('update_reservation_baggages', args)).allowed).toBe(true);
  });

  it('passengers: details may change, their number may not (4WQ150)', async () => {
    const { sentinel } = await createAirlineSession({ userId: 'chen_jackson_3290' });
    const person = (first: string) => ({ first_name: first, last_name: 'Jackson', dob: '1956-07-07' });
    const three = { reservation_id: '4WQ150', passengers: [person('Chen'), person('Raj'), person('Ana')] };
    await approve(sentinel, 'update_reservation_passengers', three);
    expect((await sentinel.check('update_reservation_passengers', three)).allowed).toBe(true);
    const two = { reservation_id: '4WQ150', passengers: [person('Chen'), person('Raj')] };
    await approve(sentinel, 'update_reservation_passengers', two);
    const fewer = await sentinel.check('update_reservation_passengers', two);
    expect(fewer.allowed).toBe(false);
    expect(fewer.text.split('\n')[0]).toBe('update_reservation_passengers is not allowed by the policy: the number of passengers cannot change: 4WQ150 has 3, the call gives 2.');
  });

  it('certificate: $100 per passenger for a cancelled flight, to an eligible customer who asked (MIC7D1)', async () => {
    const { sentinel, facts } = await createAirlineSession({ userId: 'lucas_thomas_9373' });
    facts.bind('reservation_of_interest', 'MIC7D1');
    const unasked = await sentinel.check('send_certificate', { user_id: 'lucas_thomas_9373', amount: 100 });
    expect(unasked.blockers.filter((blocker) => blocker.kind === 'ask').map((blocker) => (blocker as { goal: string }).goal)).toEqual([
      'asks_for_compensation("MIC7D1")',
      expect.stringMatching(/^confirms_certificate\(lucas_thomas_9373, 100, "send_certificate#[0-9a-z]+"\)$/),
    ]);
    facts.assert('asks_for_compensation', ['MIC7D1'], { source: 'user' });
    sentinel.recordApproval(unasked);
    expect((await sentinel.check('send_certificate', { user_id: 'lucas_thomas_9373', amount: 100 })).allowed).toBe(true);
    expect((await sentinel.check('send_certificate', { user_id: 'lucas_thomas_9373', amount: 200 })).allowed).toBe(false);
  });

  it('certificate: never for a regular member without insurance in economy (521ARH)', async () => {
    const { sentinel, facts } = await createAirlineSession({ userId: 'isabella_davis_2143' });
    facts.bind('reservation_of_interest', '521ARH');
    facts.assert('asks_for_compensation', ['521ARH'], { source: 'user' });
    await approve(sentinel, 'send_certificate', { user_id: 'isabella_davis_2143', amount: 100 });
    const result = await sentinel.check('send_certificate', { user_id: 'isabella_davis_2143', amount: 100 });
    expect(result).toMatchObject({ allowed: false, status: 'failed' });
  });

  it('unlisted tools stay closed; read-only ones are open', async () => {
    const { sentinel } = await createAirlineSession({ userId: 'lei_rossi_3206' });
    expect((await sentinel.check('think', { thought: 'x' })).allowed).toBe(true);
    expect((await sentinel.check('get_user_details', { user_id: 'emma_smith_9363' })).allowed).toBe(false);
  });
});

describe('airline: a scripted conversation through the tools for the model', () => {
  it('a cancellation is refused with blockers, the agent asks and binds what is missing, then it is proved', async () => {
    const { sentinel, facts, tools, db } = await createAirlineSession({ strict: true });
    const [query, setContext, confirm] = createPolicyTools(sentinel);
    const cancel = async (reservationId: string) => {
      const result = await sentinel.check('cancel_reservation', { reservation_id: reservationId });
      if (result.allowed) tools.cancel_reservation!.execute({ reservation_id: reservationId });
      return result;
    };

    // User: "Cancel my booking 1YVFB9." The model tries at once; strict mode has never heard of 1YVFB9.
    const first = await cancel('1YVFB9');
    expect(first.blockers).toEqual([{ kind: 'unestablished-value', parameter: 'reservation_id', value: '1YVFB9', read: 'get_user_details(user_id: <current_user>)' }]);
    expect(db.reservations['1YVFB9']!.status).toBeUndefined();

    // The model needs the user id first; the user gives it. (A made-up id would fail the guard of get_user_details.)
    facts.bind('current_user', 'emma_smith_9363', { source: 'user' });
    expect((await query!.execute({ goal: 'user_reservation(current_user, R)' })).content).toContain('R = "1YVFB9"');
    expect((await setContext!.execute({ name: 'reservation_of_interest', value: '1YVFB9' })).isError).toBe(false);

    // Now the call is refused with the questions to ask, the rest having been fetched and checked.
    const second = await cancel('1YVFB9');
    expect(second.status).toBe('blocked');
    expect(second.text).toContain('Ask the user: "What is the reason for cancelling 1YVFB9');
    expect(second.text).toContain("replace _Reason with the user's answer");
    expect(second.text).toContain('Ask the user: "Cancel the whole reservation 1YVFB9?');

    // User: "Yes, cancel it." (the host passes the conversation: the question the user answered, and the answer)
    facts.noteExchange(exchangeOf([{ role: 'assistant', text: 'Cancel the whole reservation 1YVFB9? The refund goes to the original payment methods in 5 to 7 business days. (yes/no)' }, { role: 'user', text: 'Yes, cancel it, my plans changed.' }])!);
    expect((await confirm!.execute({ goal: 'cancellation_reason(reservation_of_interest, change_of_plan)', answer: 'yes' })).isError).toBe(false);
    // The yes is for this exact call: the goal the refusal gave ends with the call's reference.
    const goal = second.text.match(/goal `(confirms_cancellation\([^`]+\))`/)![1]!;
    expect((await confirm!.execute({ goal: 'confirms_cancellation(reservation_of_interest)', answer: 'yes' })).content).toContain('ends with the call\'s reference');
    expect((await confirm!.execute({ goal, answer: 'yes' })).isError).toBe(false);
    const third = await cancel('1YVFB9');
    expect(third.allowed).toBe(true);
    expect(db.reservations['1YVFB9']!.status).toBe('cancelled');
  });
});
