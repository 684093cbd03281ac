import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { guardTools, policyTools } from '../../../adapters/ai-sdk/index.js';
import { createSentinelSessions, parseRulebase } from '../../../src/index.js';
import { REFUND_RULES, refundSetup } from '../../guards/helpers.js';
import { callTool, say, sequenceModel } from './fixtures.js';

describe('policyTools', () => {
  it('lets the model fix what a refusal asked for, after which the guarded call runs', async () => {
    const { sentinel } = refundSetup({ B1: { status: 'cancelled_by_airline', delay_minutes: 0 } });
    const refunds: string[] = [];
    const refund = tool({
      inputSchema: jsonSchema<{ booking_id: string }>({ type: 'object', properties: { booking_id: { type: 'string' } }, required: ['booking_id'] }),
      execute: async ({ booking_id }) => (refunds.push(booking_id), `Refunded ${booking_id}.`),
    });
    const mock = sequenceModel(
      callTool('query_policy', 'q1', { goal: 'refundable(' }),
      callTool('set_context', 's1', { name: 'booking_of_interest', value: 'B1' }),
      callTool('record_confirmation', 'c1', { goal: 'customer_confirms("B1")', answer: 'yes' }),
      callTool('issue_refund', 'r1', { booking_id: 'B1' }),
      say('Your refund is on its way.'),
    );
    const tools = { ...guardTools({ issue_refund: refund }, { sentinel }), ...policyTools(sentinel) };
    expect(Object.keys(tools)).toEqual(['issue_refund', 'query_policy', 'set_context', 'record_confirmation']);
    const result = await generateText({ model: mock, tools, prompt: 'Refund B1, I confirm.', stopWhen: stepCountIs(6) });

    expect(result.text).toBe('Your refund is on its way.');
    expect(refunds).toEqual(['B1']);
    const toolOutputs = mock.doGenerateCalls.slice(1).map(({ prompt }) => {
      const last = prompt.at(-1)!;
      return last.role === 'tool' && last.content[0]!.type === 'tool-result' ? last.content[0]!.output : undefined;
    });
    expect(toolOutputs[0]).toMatchObject({ type: 'error-text', value: expect.stringMatching(/^Cannot parse the goal/) });
    expect(toolOutputs[1]).toEqual({ type: 'text', value: 'booking_of_interest = "B1".' });
    expect(toolOutputs[2]).toEqual({ type: 'text', value: 'Recorded: customer_confirms("B1").' });
    expect(toolOutputs[3]).toEqual({ type: 'text', value: 'Refunded B1.' });
  });

  it('with per-conversation sentinels, a call no conversation asked for is logged to the given logger', async () => {
    const sentinels = createSentinelSessions({ rulebase: parseRulebase(REFUND_RULES), tools: { get_booking: { execute: async () => undefined } } });
    const warnings: string[] = [];
    const tools = policyTools(sentinels, { logger: { warn: (message: string) => void warnings.push(message) } });
    const output = await tools.set_context!.execute!({ name: 'booking_of_interest', value: 'B1' }, { toolCallId: 's1', messages: [] });
    expect(output).toEqual({ content: 'The policy could not be consulted right now.', isError: true });
    expect(warnings).toEqual([expect.stringMatching(/^\[panoptes\] A policy tool failed/)]);
  });
});
