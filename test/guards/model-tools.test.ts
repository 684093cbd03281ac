import { describe, expect, it } from 'vitest';
import { createFactStore } from '../../src/facts/index.js';
import { createPolicyTools, createSentinel } from '../../src/guards/index.js';
import { parseRulebase } from '../../src/rules/index.js';
import { createFakeClock } from '../../src/testing/index.js';
import { REFUND_RULES } from './helpers.js';

function setup() {
  const facts = createFactStore({ clock: createFakeClock() });
  const sentinel = createSentinel({
    rulebase: parseRulebase(REFUND_RULES),
    facts,
    tools: { get_booking: { execute: () => ({ status: 'cancelled_by_airline', delay_minutes: 0 }) } },
  });
  const [query, bind, confirm] = createPolicyTools(sentinel);
  return { facts, sentinel, query: query!, bind: bind!, confirm: confirm! };
}

describe('tools for the model', () => {
  it('have names, descriptions and plain JSON schemas', () => {
    const { query, bind, confirm } = setup();
    expect([query.name, bind.name, confirm.name]).toEqual(['query_policy', 'set_context', 'record_confirmation']);
    expect(query.description).toContain('refundable/1');
    expect(bind.parameters).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', description: 'The context variable', enum: ['booking_of_interest'] },
        value: { type: 'string', description: expect.any(String) },
      },
      required: ['name', 'value'],
      additionalProperties: false,
    });
    expect(confirm.parameters.properties.answer!.enum).toEqual(['yes', 'no']);
    expect(confirm.description).toContain('customer_confirms(B)');
  });

  it('walk the model from blocked to allowed', async () => {
    const { sentinel, query, bind, confirm } = setup();
    expect(await query.execute({ goal: 'refundable(booking_of_interest)' })).toEqual({
      isError: false,
      content: expect.stringContaining('call set_context with name "booking_of_interest"'),
    });
    expect(await bind.execute({ name: 'booking_of_interest', value: 'BK1' })).toEqual({ isError: false, content: 'booking_of_interest = "BK1".' });
    expect((await query.execute({ goal: 'refundable(booking_of_interest)' })).content).toBe('Yes: refundable(booking_of_interest) holds.');
    const denied = await sentinel.check('issue_refund', { booking_id: 'BK1' });
    expect(denied.text).toContain('customer_confirms("BK1")');
    expect(await confirm.execute({ goal: 'customer_confirms("BK1")', answer: 'yes' })).toEqual({ isError: false, content: 'Recorded: customer_confirms("BK1").' });
    expect((await sentinel.check('issue_refund', { booking_id: 'BK1' })).allowed).toBe(true);
    expect((await confirm.execute({ goal: 'customer_confirms("BK1")', answer: 'no' })).content).toContain('declined');
    expect((await sentinel.check('issue_refund', { booking_id: 'BK1' })).allowed).toBe(false);
  });

  it('answer bad input with an error result, never a throw', async () => {
    const { query, bind, confirm } = setup();
    for (const [tool, args] of [
      [query, undefined],
      [query, { goal: 42 }],
      [query, { goal: 'refundable(' }],
      [query, { goal: 'nonsense(X)' }],
      [bind, { name: 'nope', value: 'x' }],
      [bind, { name: 'booking_of_interest' }],
      [confirm, { goal: 'refundable("BK1")', answer: 'yes' }],
      [confirm, { goal: 'customer_confirms("BK1")', answer: 'maybe' }],
    ] as const) {
      const result = await tool.execute(args);
      expect(result.isError).toBe(true);
      expect(result.content.length).toBeGreaterThan(0);
    }
  });
});
