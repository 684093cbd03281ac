/**
 * Grounded confirmations (`askable ... for tool(param, ...)`): a yes counts only for a call whose named arguments the
 * message the user answered stated (values normalised), and only once; the refusal names what the restatement left out.
 */
import { describe, expect, it } from 'vitest';
import { createFactStore, createSentinel, guardToolCall, normaliseStatement, parseRulebase, unstatedArguments, type ConversationTurn } from '../../src/index.js';
import { isPlainYes } from '../../src/guards/index.js';
import { createFakeClock } from '../../src/testing/index.js';
import { UPGRADE_RULES } from './grounded-fixtures.js';


const flights = [
  { flight_number: 'HAT001', date: '2024-05-20' },
  { flight_number: 'HAT002', date: '2024-05-22' },
];
const change = (overrides: Record<string, unknown> = {}) => ({ reservation_id: 'ABC123', flights, cabin: 'business', payment_id: 'credit_card_7815826', ...overrides });
const RESTATED = 'I will move ABC123 to Business on HAT001 (May 20th, 2024) and HAT002 (05/22/2024), paid with your credit card 7815826. Shall I proceed (yes/no)?';

function world() {
  const facts = createFactStore({ clock: createFakeClock() });
  const sentinel = createSentinel({ rulebase: parseRulebase(UPGRADE_RULES, { source: 'upgrade.rules' }), facts });
  const turns: ConversationTurn[] = [{ role: 'user', text: 'Upgrade ABC123 to business please.' }];
  const decide = (args: Record<string, unknown>) => guardToolCall({ name: 'change_flights', args }, { sentinel, conversation: turns });
  const ran = (args: Record<string, unknown>) => sentinel.recordResult('change_flights', args, { ok: true, result: 'ok' });
  return { facts, sentinel, turns, decide, ran };
}

describe('normalising what a message stated', () => {
  it('folds case, spacing, amounts, number words and date formats', () => {
    expect(normaliseStatement('Book HAT001 on May 20th, 2024, 05/21/2024, 2024-05-22T10:00:00 or 20 May for $1,234.50 with credit_card_78 (Two bags)')).toBe(
      ' book hat001 on d20240520 d20240521 d20240522 or md0520 for 1234.5 with credit card 78 2 bags ',
    );
    expect(unstatedArguments(['amount', 'dob', 'cabin'], { amount: 1234.5, dob: '1990-04-05', cabin: 'basic_economy' }, 'Basic Economy, $1,234.50, born April 5, 1990')).toEqual([]);
  });

  it('a list is stated when every item is, in any order; a missing item names the parameter', () => {
    expect(unstatedArguments(['flights'], { flights }, 'HAT002 on May 22 and HAT001 on May 20')).toEqual([]);
    expect(unstatedArguments(['flights', 'cabin'], { flights, cabin: 'business' }, 'HAT001 on May 20 in business')).toEqual(['flights']);
    // A word is matched whole: 'HAT00' is not 'HAT001', 100 is not 1000.
    expect(unstatedArguments(['a', 'b'], { a: 'HAT00', b: 100 }, 'HAT001 for $1000')).toEqual(['a', 'b']);
  });

  it('a yes is a plain yes: a yes that changes the request or takes it back is not', () => {
    expect(['yes', 'Yes, please proceed.', 'ok go ahead', "That's correct", 'Confirmed'].map(isPlainYes)).toEqual([true, true, true, true, true]);
    expect(['yes but on the 21st', 'no', 'Yes. Actually, wait', 'not yet', 'What would it cost?'].map(isPlainYes)).toEqual([false, false, false, false, false]);
  });
});

describe('a yes counts for the call the user saw, once', () => {
  it('allows the call the restatement stated, after a plain yes', async () => {
    const { turns, decide } = world();
    turns.push({ role: 'assistant', text: RESTATED }, { role: 'user', text: 'Yes, go ahead.' });
    expect(await decide(change())).toEqual({ allowed: true });
  });

  it('refuses a call with other values than those restated, naming the parameters the message did not state', async () => {
    const { turns, decide } = world();
    turns.push({ role: 'assistant', text: RESTATED }, { role: 'user', text: 'yes' });
    const other = await decide(change({ payment_id: 'gift_card_111', cabin: 'economy' }));
    expect(other).toMatchObject({ allowed: false, by: 'rules', check: { status: 'blocked', blockers: [{ kind: 'ask', unstated: ['cabin', 'payment_id'] }] } });
    expect(other.allowed || other.reason).toMatch(/^change_flights is not allowed yet\. To proceed:\n- The user's yes answered a message that did not state cabin, payment_id of this call\. Restate the call/);
    // The whole trip when one leg was agreed:
    const oneLeg = world();
    oneLeg.turns.push({ role: 'assistant', text: 'Upgrade HAT001 on May 20 to business with credit card 7815826? (yes/no)' }, { role: 'user', text: 'yes' });
    expect(await oneLeg.decide(change())).toMatchObject({ allowed: false, check: { blockers: [{ kind: 'ask', unstated: ['flights'] }] } });
  });

  it('counts a yes once: a second write, or a retry with changed arguments, needs a new yes', async () => {
    const { turns, decide, ran } = world();
    turns.push({ role: 'assistant', text: RESTATED }, { role: 'user', text: 'yes' });
    expect(await decide(change())).toEqual({ allowed: true });
    ran(change());
    expect(await decide(change())).toMatchObject({ allowed: false, check: { blockers: [{ kind: 'ask', spent: true }] } });
    // A failed call leaves its yes standing for the same call, not for another.
    const retry = world();
    retry.turns.push({ role: 'assistant', text: `${RESTATED} Or in economy.` }, { role: 'user', text: 'yes' });
    expect(await retry.decide(change())).toEqual({ allowed: true });
    retry.sentinel.recordResult('change_flights', change(), { ok: false });
    expect(await retry.decide(change())).toEqual({ allowed: true });
    expect(await retry.decide(change({ cabin: 'economy' }))).toMatchObject({ allowed: false, check: { blockers: [{ kind: 'ask', spent: true }] } });
    // A new yes to the new call counts.
    retry.turns.push({ role: 'assistant', text: RESTATED.replace('Business', 'economy') }, { role: 'user', text: 'yes' });
    expect(await retry.decide(change({ cabin: 'economy' }))).toEqual({ allowed: true });
  });

  it('the sentinel\'s own question, relayed, states the call', async () => {
    const { turns, decide } = world();
    const first = await decide(change());
    const question = first.allowed ? '' : first.check!.blockers.flatMap((blocker) => (blocker.kind === 'ask' ? [blocker.question] : []))[0]!;
    expect(question).toContain('HAT001');
    turns.push({ role: 'assistant', text: question }, { role: 'user', text: 'yes' });
    expect(await decide(change())).toEqual({ allowed: true });
  });

  it("a yes that is not plain, or an assistant's text after the user's yes, does not count", async () => {
    const { turns, decide } = world();
    turns.push({ role: 'assistant', text: RESTATED }, { role: 'user', text: 'yes but make it the 21st' });
    expect(await decide(change())).toMatchObject({ allowed: false });
    const late = world();
    late.turns.push({ role: 'assistant', text: 'Anything else?' }, { role: 'user', text: 'yes' }, { role: 'assistant', text: RESTATED });
    expect(await late.decide(change())).toMatchObject({ allowed: false, check: { blockers: [{ kind: 'ask', unstated: ['flights', 'cabin', 'payment_id'] }] } });
  });

  it("the model's report of a yes counts only when the conversation shows it", async () => {
    const { sentinel, turns, decide } = world();
    const refused = await decide(change({ cabin: 'economy' }));
    const goal = refused.allowed ? '' : refused.check!.blockers.flatMap((blocker) => (blocker.kind === 'ask' ? [blocker.goal] : []))[0]!;
    expect(() => sentinel.confirm(goal)).toThrow(/is not confirmed: the user's last message is not an explicit yes/);
    turns.push({ role: 'assistant', text: RESTATED }, { role: 'user', text: 'yes' });
    await decide(change({ cabin: 'economy' }));
    expect(() => sentinel.confirm(goal)).toThrow(/the message the user answered did not state cabin; restate the call with them and ask again/);
    // Without a conversation (a host that passes no messages), the model's word is never enough.
    const blind = world();
    const blindRefusal = await guardToolCall({ name: 'change_flights', args: change() }, { sentinel: blind.sentinel });
    const blindGoal = blindRefusal.allowed ? '' : blindRefusal.check!.blockers.flatMap((blocker) => (blocker.kind === 'ask' ? [blocker.goal] : []))[0]!;
    expect(() => blind.sentinel.confirm(blindGoal)).toThrow(/this host passes no messages/);
  });

  it('the exchange survives a snapshot of the fact store, spent or not', async () => {
    const { facts, turns, decide } = world();
    turns.push({ role: 'assistant', text: RESTATED }, { role: 'user', text: 'yes' });
    await decide(change());
    const restored = createFactStore({ clock: createFakeClock(), snapshot: JSON.parse(JSON.stringify(facts.toJSON())) });
    expect(restored.exchange()).toMatchObject({ answer: 'yes', usedBy: expect.stringMatching(/^change_flights#/) });
  });
});
