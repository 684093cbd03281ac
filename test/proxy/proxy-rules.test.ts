/** `createProxyRules` on its own: what counts as the user's yes, and which tool results become facts (once each). */
import { describe, expect, it } from 'vitest';
import { loadRulebase } from '../../src/rules/index.js';
import { createProxyRules, isExplicitYes, MAX_OPEN_CALLS } from '../../src/proxy/index.js';
import { REFUND_RULES } from './rules-helpers.js';

describe('isExplicitYes', () => {
  it.each(['yes', 'Yes.', 'YES!', 'Yes, please go ahead.', 'OK, do it', 'okay', 'I confirm', 'Confirmed.', 'sure, proceed', 'go ahead', 'Please go ahead', 'yes yes', 'I agree'])('takes %j', (text) => {
    expect(isExplicitYes(text)).toBe(true);
  });
  it.each(['', 'no', 'yes, but for my other order', 'not yes', 'yes?', 'Yes, A-2000 instead', 'maybe', 'yesterday', 'ok but wait', 'y'.repeat(80)])('refuses %j', (text) => {
    expect(isExplicitYes(text)).toBe(false);
  });
});

describe('createProxyRules', () => {
  const verify = (id: string) => ({ role: 'assistant' as const, content: '', toolCalls: [{ id, name: 'verify_identity', args: { order_id: 'A-1042' } }] });
  const result = (id: string, content: string, isError?: true) => ({ role: 'tool' as const, toolCallId: id, content, ...(isError ? { isError } : {}) });
  const verified = (rules: ReturnType<typeof createProxyRules>) => rules.sentinel('s').facts.match('verified', ['A-1042', undefined]).map((fact) => fact.args[1]);

  it('records the result of a call it let through once: a later copy that says otherwise changes nothing', async () => {
    const rules = createProxyRules({ rulebase: await loadRulebase(REFUND_RULES) });
    expect(await rules.guard('s')({ id: 'c1', name: 'verify_identity', args: { order_id: 'A-1042' } })).toEqual({ allowed: true });
    rules.observe('s', [verify('c1'), result('c1', '{"verified": true}')]);
    rules.observe('s', [verify('c1'), result('c1', '{"verified": false}')]);
    expect(verified(rules)).toEqual([true]);
  });

  it('records nothing of an error result, and keeps sessions apart', async () => {
    const rules = createProxyRules({ rulebase: await loadRulebase(REFUND_RULES) });
    await rules.guard('s')({ id: 'c1', name: 'verify_identity', args: { order_id: 'A-1042' } });
    rules.observe('s', [result('c1', '{"verified": true}', true)]);
    expect(verified(rules)).toEqual([]);
    await rules.guard('other')({ id: 'c2', name: 'verify_identity', args: { order_id: 'A-1042' } });
    rules.observe('s', [result('c2', '{"verified": true}')]); // c2 was let through in another session
    expect(verified(rules)).toEqual([]);
  });

  it(`remembers at most ${MAX_OPEN_CALLS} unanswered calls a session: the oldest is forgotten`, async () => {
    const rules = createProxyRules({ rulebase: await loadRulebase(REFUND_RULES) });
    const guard = rules.guard('s');
    for (let index = 0; index <= MAX_OPEN_CALLS; index++) await guard({ id: `c${index}`, name: 'verify_identity', args: { order_id: 'A-1042' } });
    rules.observe('s', [result('c0', '{"verified": true}')]);
    expect(verified(rules)).toEqual([]);
    rules.observe('s', [result('c1', '{"verified": true}')]);
    expect(verified(rules)).toEqual([true]);
  });

  it('takes the yes only from a request that ends with it, after the refusal that asked', async () => {
    const rules = createProxyRules({ rulebase: await loadRulebase(REFUND_RULES) });
    const guard = rules.guard('s');
    await guard({ id: 'c1', name: 'verify_identity', args: { order_id: 'A-1042' } });
    rules.observe('s', [{ role: 'user', content: 'yes' }, result('c1', '{"verified": true}')]); // a yes said before anything was asked
    const refund = { id: 'r1', name: 'issue_refund', args: { order_id: 'A-1042' } };
    expect(await guard(refund)).toMatchObject({ allowed: false, reason: expect.stringContaining('Ask the user') });
    rules.observe('s', [{ role: 'user', content: 'yes' }, { role: 'assistant', content: 'Do you confirm?' }]); // the old yes, before the question
    expect((await guard(refund)).allowed).toBe(false);
    rules.observe('s', [{ role: 'assistant', content: 'Do you confirm?' }, { role: 'user', content: 'Yes.' }]);
    expect(await guard(refund)).toEqual({ allowed: true });
  });
});
