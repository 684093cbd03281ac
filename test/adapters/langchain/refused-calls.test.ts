import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { unrestoredCalls, withoutRefusedCalls, withRefusedCalls, withRestoredAnswers, type RefusedCall } from '../../../adapters/langchain/refused-calls.js';
import { describeMessage } from './helpers.js';

const answer = (fields: Partial<ConstructorParameters<typeof AIMessage>[0] & object> = {}) =>
  new AIMessage({
    content: 'On it.',
    tool_calls: [
      { name: 'get_booking', args: { booking_id: 'B1' }, id: 'g1', type: 'tool_call' },
      { name: 'issue_refund', args: { booking_id: 'B1' }, id: 'r1', type: 'tool_call' },
    ],
    ...fields,
  });
const refund: RefusedCall = { call: { name: 'issue_refund', args: { booking_id: 'B1' }, id: 'r1', type: 'tool_call' }, index: 1, reason: 'Not yet.' };

describe('an answer without its refused calls', () => {
  it('keeps its id (given one if it had none), records the calls, and gets them back in their places', () => {
    const original = answer();
    const stripped = withoutRefusedCalls(original, [refund]);
    expect(stripped.id).toBeDefined();
    expect(stripped.id).toBe(original.id); // replaces the model's answer in the thread
    expect(stripped.tool_calls!.map((call) => call.id)).toEqual(['g1']);
    expect(unrestoredCalls(stripped)).toEqual([refund]);
    const restored = withRefusedCalls(stripped);
    expect(restored.tool_calls!.map((call) => call.id)).toEqual(['g1', 'r1']);
    expect(restored.id).toBe(original.id);
    expect(unrestoredCalls(restored)).toEqual([]);
  });

  it('in the standard content format (v1), drops the refused call’s content block too, which would bring the call back', () => {
    const v1 = answer({
      id: 'a1',
      content: [
        { type: 'text', text: 'On it.' },
        { type: 'tool_call', id: 'g1', name: 'get_booking', args: { booking_id: 'B1' } },
        { type: 'tool_call', id: 'r1', name: 'issue_refund', args: { booking_id: 'B1' } },
      ],
      response_metadata: { output_version: 'v1' },
    });
    const stripped = withoutRefusedCalls(v1, [refund]);
    expect(stripped.tool_calls!.map((call) => call.id)).toEqual(['g1']);
    // As a checkpointer stores and loads it: built again from its fields.
    expect(new AIMessage(stripped.lc_kwargs as ConstructorParameters<typeof AIMessage>[0]).tool_calls!.map((call) => call.id)).toEqual(['g1']);
    expect(withRefusedCalls(stripped).tool_calls!.map((call) => call.id)).toEqual(['g1', 'r1']);
  });
});

describe('withRestoredAnswers', () => {
  it('gives the model the whole answer, each refusal after the answer’s other results', () => {
    const stripped = withoutRefusedCalls(answer({ id: 'a1' }), [refund]);
    const thread = [new HumanMessage('Refund B1.'), stripped, new ToolMessage({ content: '{"status":"cancelled"}', tool_call_id: 'g1' }), new HumanMessage('Well?')];
    expect(withRestoredAnswers(thread).map(describeMessage)).toEqual([
      'human:Refund B1.',
      'ai:On it. get_booking({"booking_id":"B1"}) issue_refund({"booking_id":"B1"})',
      'tool:{"status":"cancelled"}',
      'tool:Not yet. [error]',
      'human:Well?',
    ]);
  });

  it('returns the same messages when nothing was refused, or the thread already holds the restored answer', () => {
    const plain = [new HumanMessage('Hi.'), answer()];
    expect(withRestoredAnswers(plain)).toBe(plain);
    const restored = [withRefusedCalls(withoutRefusedCalls(answer({ id: 'a1' }), [refund]))];
    expect(withRestoredAnswers(restored)).toBe(restored);
  });
});
