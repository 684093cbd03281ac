/**
 * Regression: the agent's own LangChain tools were refused as the rules' data tools (`InvalidOptionError`: the
 * sentinel wanted an `execute` handler, and a LangChain tool has `invoke`). They are accepted as they are now, and
 * their text results are read as JSON.
 */
import { tool } from '@langchain/core/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createFactStore, createSentinel, createSentinelSessions, parseRulebase } from '../../../src/index.js';

const rulebase = parseRulebase(`
context current_user
data order_owner(O, U) from lookup_order(order_id: O) -> U = $.customer_id ttl 60s
guard refund_order(order_id: O) :- order_owner(O, current_user).
`);

describe('LangChain tools as data tools', () => {
  it('are called through invoke, their JSON text read as facts, by a sentinel and by per-conversation sentinels', async () => {
    const calls: string[] = [];
    const lookupOrder = tool(async ({ order_id }) => (calls.push(order_id), JSON.stringify({ order_id, customer_id: 'cus_1' })), {
      name: 'lookup_order',
      description: 'Look an order up.',
      schema: z.object({ order_id: z.string() }),
    });
    const refundOrder = tool(async () => 'refunded', { name: 'refund_order', description: 'Refund.', schema: z.object({ order_id: z.string() }) });
    const facts = () => createFactStore({ seed: { context: { current_user: 'cus_1' } } });

    const sentinel = createSentinel({ rulebase, facts: facts(), tools: [lookupOrder, refundOrder] });
    expect((await sentinel.check('refund_order', { order_id: 'A1' })).status).toBe('proved');

    const sessions = createSentinelSessions({ rulebase, facts, tools: [lookupOrder, refundOrder] });
    expect((await sessions.forSession('t1').check('refund_order', { order_id: 'A2' })).status).toBe('proved');
    expect(calls).toEqual(['A1', 'A2']);
  });
});
