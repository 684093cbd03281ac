import { describe, expect, it, vi } from 'vitest';
import { InvalidOptionError } from '../../src/errors/index.js';
import { createFactStore, type FactStore } from '../../src/facts/index.js';
import { createSentinel, SentinelInputError, ToolCallDeniedError } from '../../src/guards/index.js';
import { parseRulebase } from '../../src/rules/index.js';
import { createFakeClock } from '../../src/testing/index.js';

const RULES = `
context current_user "the logged-in user"
context reservation_of_interest "the reservation the customer is talking about"
data reservation_of(U, R) from get_user(user_id: U) -> R = $.reservations ttl 60s
data cabin(R, C) from get_reservation(reservation_id: R) -> C = $.cabin ttl 60s
askable confirms_cancel(R) "Cancel reservation {R}? (yes/no)"
guard cancel_reservation(reservation_id: R) :-
  reservation_of(current_user, R), cabin(R, business), confirms_cancel(R).
`;

function setup(strict: boolean | { parameters: string[] } = false) {
  const clock = createFakeClock();
  const facts = createFactStore({ clock, seed: { context: { current_user: 'mia' } } });
  const getUser = vi.fn(() => ({ reservations: ['NO6JO3', 'AIXC49'] }));
  const getReservation = vi.fn((args: Record<string, unknown>) => ({ cabin: args.reservation_id === 'NO6JO3' ? 'business' : 'economy' }));
  const cancel = vi.fn();
  const sentinel = createSentinel({
    rulebase: parseRulebase(RULES, { source: 'airline.rules' }),
    facts,
    tools: { get_user: { execute: getUser }, get_reservation: { execute: getReservation } },
    strict,
  });
  /** What an adapter does: check, then run the tool only when allowed. */
  const guardedCancel = async (args: Record<string, unknown>) => {
    const result = await sentinel.check('cancel_reservation', args);
    if (result.allowed) cancel(args);
    return result;
  };
  return { clock, facts, sentinel, getUser, getReservation, cancel, guardedCancel };
}

const snapshot = (facts: FactStore) => JSON.stringify(facts.toJSON());

describe('sentinel.check', () => {
  it('allows a proved call and denies the rest', async () => {
    const { sentinel, facts, guardedCancel, cancel } = setup();
    expect((await guardedCancel({ reservation_id: 'NO6JO3' })).blockers.map((b) => b.kind)).toEqual(['ask']);
    sentinel.confirm('confirms_cancel("NO6JO3")');
    expect((await guardedCancel({ reservation_id: 'NO6JO3' })).allowed).toBe(true);
    expect(cancel).toHaveBeenCalledTimes(1);
    expect(facts.facts('confirms_cancel')).toEqual([expect.objectContaining({ source: 'user' })]);
  });

  it('rejections leave no trace: tool not executed, fact store and snapshot unchanged', async () => {
    const { facts, guardedCancel, cancel } = setup();
    await guardedCancel({ reservation_id: 'AIXC49' }); // establishes the facts
    const version = facts.version;
    const before = snapshot(facts);
    const result = await guardedCancel({ reservation_id: 'AIXC49' });
    expect(result).toMatchObject({ allowed: false, status: 'failed' });
    expect(cancel).not.toHaveBeenCalled();
    expect(facts.version).toBe(version);
    expect(snapshot(facts)).toBe(before);
  });

  it('strict mode refuses a hallucinated booking id before any rule or tool runs', async () => {
    const { facts, guardedCancel, cancel, getUser, getReservation } = setup(true);
    const before = snapshot(facts);
    const result = await guardedCancel({ reservation_id: 'ZZZ999' });
    expect(result).toMatchObject({ allowed: false, status: 'blocked', blockers: [{ kind: 'unestablished-value', parameter: 'reservation_id', value: 'ZZZ999' }] });
    expect(result.text).toContain('reservation_id = "ZZZ999" is not a known fact');
    expect(cancel).not.toHaveBeenCalled();
    expect(getUser).not.toHaveBeenCalled();
    expect(getReservation).not.toHaveBeenCalled();
    expect(snapshot(facts)).toBe(before);
  });

  it('strict mode accepts ids that facts established, context values and the policy vocabulary', async () => {
    const { sentinel, facts, guardedCancel } = setup(true);
    // Data tools only read: strict mode leaves their arguments to their guards (issue 14).
    expect((await sentinel.check('get_user', { user_id: 'someone_else' })).allowed).toBe(true);
    facts.assert('reservation_of', ['mia', 'NO6JO3']);
    sentinel.confirm('confirms_cancel("NO6JO3")');
    expect((await guardedCancel({ reservation_id: 'NO6JO3' })).allowed).toBe(true);
    expect((await guardedCancel({ reservation_id: 'business' })).blockers.map((blocker) => blocker.kind)).not.toContain('unestablished-value');
  });

  it('strict mode accepts a value read in a tool result the agent got, and says which read establishes one', async () => {
    const { sentinel, guardedCancel } = setup(true);
    const refused = await guardedCancel({ reservation_id: 'AIXC49' });
    expect(refused.blockers).toEqual([{ kind: 'unestablished-value', parameter: 'reservation_id', value: 'AIXC49', read: 'get_user(user_id: mia)' }]);
    expect(refused.text).toContain('reservation_id = "AIXC49" is not a known fact: read it first with get_user(user_id: mia)');
    sentinel.recordResult('get_user', { user_id: 'mia' }, { ok: true, result: { reservations: ['NO6JO3', 'AIXC49'] } });
    expect((await guardedCancel({ reservation_id: 'AIXC49' })).blockers.map((blocker) => blocker.kind)).not.toContain('unestablished-value');
  });

  it('strict mode limited to some parameters', async () => {
    const { sentinel, guardedCancel } = setup({ parameters: ['reservation_id'] });
    expect((await sentinel.check('get_user', { user_id: 'anyone' })).allowed).toBe(true);
    expect((await guardedCancel({ reservation_id: 'ZZZ' })).blockers[0]).toMatchObject({ kind: 'unestablished-value', parameter: 'reservation_id' });
  });

  it('tools without a guard: data tools allowed, others denied unless configured', async () => {
    const { sentinel } = setup();
    expect((await sentinel.check('get_user', { user_id: 'mia' })).allowed).toBe(true);
    const denied = await sentinel.check('delete_everything', {});
    expect(denied).toMatchObject({ allowed: false, status: 'failed', blockers: [{ kind: 'no-guard', tool: 'delete_everything' }] });
    const open = createSentinel({ rulebase: parseRulebase(RULES), facts: createFactStore({ clock: createFakeClock() }), tools: { get_user: { execute: () => ({}) }, get_reservation: { execute: () => ({}) } }, unguardedTools: 'allow' });
    expect((await open.check('think', { thought: 'hm' })).allowed).toBe(true);
  });

  it('bad runtime input gets a defined result, never a throw', async () => {
    const { sentinel } = setup();
    expect((await sentinel.check('cancel_reservation', null as never)).blockers).toEqual([{ kind: 'missing-argument', parameter: 'reservation_id' }]);
    expect((await sentinel.check('cancel_reservation', { reservation_id: { nested: 'object' } })).allowed).toBe(false);
    const huge = 'x'.repeat(10_000_000);
    expect((await sentinel.check('cancel_reservation', { reservation_id: huge })).allowed).toBe(false);
  });

  it('fails closed when Panoptes itself breaks', async () => {
    const { facts } = setup();
    const broken = { ...facts, match: () => { throw new Error('store exploded'); }, clock: facts.clock } as unknown as FactStore;
    const sentinel = createSentinel({ rulebase: parseRulebase(RULES), facts: broken, tools: { get_user: { execute: () => ({ reservations: [] }) }, get_reservation: { execute: () => ({}) } } });
    const result = await sentinel.check('cancel_reservation', { reservation_id: 'NO6JO3' });
    expect(result).toMatchObject({ allowed: false, blockers: [{ kind: 'internal-error', reason: 'store exploded' }] });
  });

  it('assertAllowed throws ToolCallDeniedError with the text for the model', async () => {
    const { sentinel } = setup();
    await expect(sentinel.assertAllowed('cancel_reservation', { reservation_id: 'AIXC49' })).rejects.toSatisfy(
      (error) => ToolCallDeniedError.isInstance(error) && error.code === 'TOOL_CALL_DENIED' && error.modelText.startsWith('cancel_reservation is not allowed'),
    );
  });

  it('keeps the text for the model apart from the developer message', async () => {
    const { sentinel } = setup();
    const result = await sentinel.check('cancel_reservation', { reservation_id: 'AIXC49' });
    expect(result.text).toBe(
      'cancel_reservation is not allowed by the policy: cabin("AIXC49", business) does not hold (known: cabin("AIXC49", economy)).\nDo not retry it with these arguments unless the facts change; tell the user why.',
    );
    expect(result.message).toContain('airline.rules:8 condition failed: cabin("AIXC49", business) [cabin(R, business)]');
  });
});

describe('sentinel: inputs from the model', () => {
  it('query: syntax errors and unknown predicates are typed input errors with text for the model', async () => {
    const { sentinel } = setup();
    await expect(sentinel.query('cabin(')).rejects.toSatisfy((error) => SentinelInputError.isInstance(error) && error.modelText.includes('column 7'));
    await expect(sentinel.query('cabn(R, C)')).rejects.toSatisfy((error) => SentinelInputError.isInstance(error) && error.modelText.includes("did you mean 'cabin'?"));
    await expect(sentinel.query('cabin(R)')).rejects.toThrow(/takes 2 arguments/);
    await expect(sentinel.query('')).rejects.toThrow(SentinelInputError);
  });

  it('query in strict mode refuses quoted literals nobody established', async () => {
    const { sentinel } = setup(true);
    await expect(sentinel.query('cabin("ZZZ999", C)')).rejects.toThrow(/not an established fact/);
    const ok = await sentinel.query('reservation_of(current_user, R)');
    expect(ok.answers.map((answer) => answer.bindings.R)).toEqual(['NO6JO3', 'AIXC49']);
  });

  it('bindContext: declared names only; strict mode wants established values', () => {
    const { sentinel } = setup(true);
    expect(() => sentinel.bindContext('reservation_of_intrest', 'NO6JO3')).toThrow(SentinelInputError);
    try {
      sentinel.bindContext('reservation_of_intrest', 'NO6JO3');
    } catch (error) {
      expect((error as SentinelInputError).modelText).toContain("did you mean 'reservation_of_interest'?");
    }
    expect(() => sentinel.bindContext('reservation_of_interest', 'NO6JO3')).toThrow(/not an established fact/);
    expect(() => sentinel.bindContext('reservation_of_interest', { a: 1 } as never)).toThrow(/string, number/);
  });

  it('confirm: only ground askables; no retracts', () => {
    const { sentinel, facts } = setup();
    expect(() => sentinel.confirm('cabin("NO6JO3", business)')).toThrow(/not an askable/);
    expect(() => sentinel.confirm('confirms_cancel(R)')).toThrow(/not ground/);
    expect(() => sentinel.confirm('confirms_cancel(reservation_of_interest)')).toThrow(/not ground/);
    facts.bind('reservation_of_interest', 'NO6JO3');
    expect(sentinel.confirm('confirms_cancel(reservation_of_interest)')).toBe('confirms_cancel("NO6JO3")');
    expect(facts.has('confirms_cancel', ['NO6JO3'])).toBe(true);
    sentinel.confirm('confirms_cancel("NO6JO3")', false);
    expect(facts.has('confirms_cancel', ['NO6JO3'])).toBe(false);
  });
});

describe('createSentinel validates its options', () => {
  const facts = createFactStore({ clock: createFakeClock() });
  const rulebase = parseRulebase(RULES);
  const tools = { get_user: { execute: () => ({}) }, get_reservation: { execute: () => ({}) } };
  it.each([
    ['rulebase', { rulebase: {} as never, facts, tools }],
    ['facts', { rulebase, facts: {} as never, tools }],
    ['tools', { rulebase, facts, tools: { get_user: tools.get_user } }],
    ['fetchTimeoutMs', { rulebase, facts, tools, fetchTimeoutMs: 0 }],
    ['maxDepth', { rulebase, facts, tools, maxDepth: Number.NaN }],
    ['unguardedTools', { rulebase, facts, tools, unguardedTools: 'maybe' as never }],
  ])('%s', (parameter, options) => {
    expect(() => createSentinel(options)).toThrow(InvalidOptionError);
    try {
      createSentinel(options);
    } catch (error) {
      expect((error as InvalidOptionError).parameter).toBe(parameter);
    }
  });

  it('names the missing data tool handler', () => {
    expect(() => createSentinel({ rulebase, facts, tools: [{ name: 'get_user', execute: () => ({}) }] })).toThrow(/data tool 'get_reservation'/);
  });
});

describe('strict tool(param): strict checks of a data tool\'s own arguments', () => {
  // get_reservation has no guard: only the declaration makes strict mode look at its argument. The read that
  // establishes a reservation id is found where the policy itself calls it: reservation_of(current_user, R), cabin(R, ...).
  const STRICT = `${RULES}strict get_reservation(reservation_id).\n`;
  const sentinelOf = (text: string, strict: boolean | { parameters: string[] }) => {
    const getReservation = vi.fn(() => ({ cabin: 'business' }));
    const facts = createFactStore({ clock: createFakeClock(), seed: { context: { current_user: 'mia' } } });
    const sentinel = createSentinel({ rulebase: parseRulebase(text), facts, tools: { get_user: { execute: () => ({ reservations: ['NO6JO3'] }) }, get_reservation: { execute: getReservation } }, strict });
    return { sentinel, facts, getReservation };
  };

  it('refuses a made-up id with the read that would establish it, and accepts an id a result gave', async () => {
    const { sentinel, facts, getReservation } = sentinelOf(STRICT, true);
    const before = snapshot(facts);
    const refused = await sentinel.check('get_reservation', { reservation_id: 'ZZZ999' });
    expect(refused).toMatchObject({ allowed: false, status: 'blocked', blockers: [{ kind: 'unestablished-value', parameter: 'reservation_id', value: 'ZZZ999', read: 'get_user(user_id: mia)' }] });
    expect(refused.text).toBe(
      'get_reservation is not allowed yet. To proceed:\n- reservation_id = "ZZZ999" is not a known fact: read it first with get_user(user_id: mia) (or, if the user said it, ask them and call set_context).',
    );
    expect(getReservation).not.toHaveBeenCalled();
    expect(snapshot(facts)).toBe(before);
    sentinel.recordResult('get_user', { user_id: 'mia' }, { ok: true, result: { reservations: ['NO6JO3'] } });
    expect((await sentinel.check('get_reservation', { reservation_id: 'NO6JO3' })).allowed).toBe(true);
  });

  it('checks the declared parameter whatever strict.parameters lists, and numbers too', async () => {
    const { sentinel } = sentinelOf(STRICT, { parameters: ['user_id'] });
    expect((await sentinel.check('get_reservation', { reservation_id: 404 })).blockers).toEqual([{ kind: 'unestablished-value', parameter: 'reservation_id', value: 404, read: 'get_user(user_id: mia)' }]);
  });

  it('without the declaration, or without strict mode, a data tool is not judged on its arguments (unchanged)', async () => {
    expect((await sentinelOf(RULES, true).sentinel.check('get_reservation', { reservation_id: 'ZZZ999' })).allowed).toBe(true);
    expect((await sentinelOf(STRICT, false).sentinel.check('get_reservation', { reservation_id: 'ZZZ999' })).allowed).toBe(true);
  });

  it('opts in a tool whose guard allows every call; with no read in the policy, the text says to look the value up', async () => {
    const { sentinel } = sentinelOf(`${RULES}guard lookup_fare.\nstrict lookup_fare(fare_code).\n`, true);
    const refused = await sentinel.check('lookup_fare', { fare_code: 'Y26', note: 'free text is not checked' });
    expect(refused.blockers).toEqual([{ kind: 'unestablished-value', parameter: 'fare_code', value: 'Y26' }]);
    expect(refused.text).toContain('fare_code = "Y26" is not a known fact: look it up with a data tool first');
  });
});
