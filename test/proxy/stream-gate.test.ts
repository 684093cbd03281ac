/** The stream gate, chunk by chunk: text passes at once, tool calls wait for the end and their checks. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DONE_EVENT } from '../../src/proxy/stream-gate.js';
import { StreamGate } from '../../src/proxy/index.js';
import { streamEvents } from './fake-upstream.js';

const data = (text: string) => text.split('\n\n').filter(Boolean).map((line) => line.replace(/^data: /, ''));
/** What the gate hands the checks: the first choice's text and every call, put together. */
const turn = (gate: StreamGate) => ({
  content: gate.text,
  toolCalls: gate.calls().map((call) => ({ ...(call.id === undefined ? {} : { id: call.id }), name: call.name, args: JSON.parse((call.arguments as string) || '{}') })),
});

describe('StreamGate', () => {
  it('passes text deltas at once, holds tool-call deltas and the finish, and releases the allowed calls whole', () => {
    const gate = new StreamGate();
    const events = streamEvents({ content: 'One moment.', toolCalls: [{ id: 'a', name: 'verify_identity', args: { account: 'ACC-77' } }, { id: 'b', name: 'issue_refund', args: { amount: 42 } }] });
    const passed = events.map((event) => gate.push(event));
    expect(passed.filter(Boolean).map((text) => JSON.parse(data(text!)[0]!).choices[0].delta.content).join('')).toBe('One moment.');
    expect(passed.filter(Boolean).every((text) => !text!.includes('tool_calls'))).toBe(true);
    expect(gate.end).toBe('done');
    expect(turn(gate)).toEqual({ content: 'One moment.', toolCalls: [{ id: 'a', name: 'verify_identity', args: { account: 'ACC-77' } }, { id: 'b', name: 'issue_refund', args: { amount: 42 } }] });

    const released = gate.release([{ id: 'b', name: 'issue_refund', reason: 'The call to issue_refund was refused.', constraints: ['c'] }]);
    const chunks = data(released);
    expect(chunks.at(-1)).toBe('[DONE]');
    const parsed = chunks.slice(0, -1).map((chunk) => JSON.parse(chunk));
    expect(parsed[0].choices[0].delta.tool_calls).toEqual([{ index: 0, id: 'a', type: 'function', function: { name: 'verify_identity', arguments: '{"account":"ACC-77"}' } }]);
    expect(parsed[1].choices[0].delta.content).toBe("\n\nI can't do that.");
    expect(parsed[2].choices[0].finish_reason).toBe('tool_calls'); // a call is left
    expect(parsed[3].usage).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
    expect(released.endsWith(DONE_EVENT)).toBe(true);
  });

  it('ends with finish_reason stop when every call was refused', () => {
    const gate = new StreamGate();
    for (const event of streamEvents({ content: '', toolCalls: [{ id: 'a', name: 'issue_refund', args: {} }] })) gate.push(event);
    const parsed = data(gate.release([{ id: 'a', name: 'issue_refund', reason: 'no', constraints: [] }])).slice(0, -1).map((chunk) => JSON.parse(chunk));
    expect(parsed.some((chunk) => chunk.choices[0]?.delta?.tool_calls)).toBe(false);
    expect(parsed.find((chunk) => chunk.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe('stop');
  });

  it('puts together any split of the arguments into the same calls (property; the oracle is the turn itself)', () => {
    const call = fc.record({ id: fc.string({ minLength: 1, maxLength: 8 }), name: fc.constantFrom('verify_identity', 'issue_refund', 'lookup'), args: fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.string(), fc.integer())) });
    fc.assert(
      fc.property(fc.string(), fc.array(call, { maxLength: 4 }), fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 5 }), (content, toolCalls, sizes) => {
        const gate = new StreamGate();
        let passedText = '';
        for (const event of splitEvents({ content, toolCalls }, sizes)) {
          const out = gate.push(event);
          if (out) passedText += JSON.parse(data(out)[0]!).choices[0].delta.content ?? '';
        }
        expect(passedText).toBe(content);
        expect(turn(gate)).toEqual({ content, toolCalls });
      }),
      { numRuns: 300 },
    );
  });

  it('counts malformed data, and withholds the calls of a stream cut off before its finish', () => {
    const gate = new StreamGate();
    const events = streamEvents({ content: 'Hi', toolCalls: [{ id: 'a', name: 'verify_identity', args: { account: 'x' } }] });
    gate.push('{oops');
    gate.push('"a string"');
    for (const event of events.slice(0, 5)) gate.push(event);
    expect(gate.malformed).toBe(2);
    expect(gate.end).toBe('cut-off');
    expect(turn(gate)).toEqual({ content: 'Hi', toolCalls: [] });
  });

  it('holds at most maxHeldChars of tool-call text, then flags the response as too large to check', () => {
    const gate = new StreamGate({ maxHeldChars: 50 });
    for (const event of streamEvents({ content: '', toolCalls: [{ id: 'a', name: 'issue_refund', args: { note: 'x'.repeat(200) } }] })) gate.push(event);
    expect(gate.overflow).toBe(true);
  });
});

/** A turn's events with the text and each call's arguments cut into pieces of the given sizes, in turn. */
function splitEvents(turn: { content: string; toolCalls: Array<{ id: string; name: string; args: Record<string, unknown> }> }, sizes: number[]): string[] {
  let next = 0;
  const pieces = (text: string) => {
    const result: string[] = [];
    for (let at = 0; at < text.length; ) {
      const size = sizes[next++ % sizes.length]!;
      result.push(text.slice(at, at + size));
      at += size;
    }
    return result;
  };
  const chunk = (delta: object, finish: string | null = null) => JSON.stringify({ id: 'x', choices: [{ index: 0, delta, finish_reason: finish }] });
  const events = pieces(turn.content).map((piece) => chunk({ content: piece }));
  turn.toolCalls.forEach((call, index) => {
    events.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of pieces(JSON.stringify(call.args))) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  events.push(chunk({}, turn.toolCalls.length > 0 ? 'tool_calls' : 'stop'), '[DONE]');
  return events;
}
