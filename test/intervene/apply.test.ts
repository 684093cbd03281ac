import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/messages/index.js';
import { applyInterventions, type RenderedIntervention } from '../../src/intervene/index.js';

const guidance = (text: string): RenderedIntervention => ({ name: 'g', strategy: 'system-prompt-append', text });
const note = (text: string): RenderedIntervention => ({ name: 'n', strategy: 'user-message-inject', text });
const reminder = (text: string): RenderedIntervention => ({ name: 'r', strategy: 'context-reminder', text });

const toolRound: ChatMessage[] = [
  { role: 'system', content: 'You are a support agent.' },
  { role: 'user', content: 'Refund order 42.' },
  { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'process_refund', args: { order: 42 } }] },
  { role: 'tool', content: 'refused', toolCallId: 'c1', name: 'process_refund', isError: true },
];

/** Every tool message directly follows an assistant message (or another tool message) that called it. */
function assertProviderValid(messages: ChatMessage[]) {
  expect(messages.at(-1)?.role).not.toBe('assistant');
  messages.forEach((message, index) => {
    if (message.role !== 'tool') return;
    const before = messages[index - 1];
    expect(before?.role === 'tool' || (before?.role === 'assistant' && (before.toolCalls?.length ?? 0) > 0)).toBe(true);
  });
}

describe('applyInterventions', () => {
  it('appends a guidance block to the existing system message without mutating the input', () => {
    const input = structuredClone(toolRound);
    const result = applyInterventions(input, [guidance('Verify identity first.')]);
    expect(result[0]).toEqual({ role: 'system', content: 'You are a support agent.\n\n[WORKFLOW GUIDANCE]\nVerify identity first.' });
    expect(input).toEqual(toolRound);
    assertProviderValid(result);
  });

  it('creates a system message when there is none', () => {
    const result = applyInterventions([{ role: 'user', content: 'hi' }], [guidance('Greet first.')]);
    expect(result).toEqual([
      { role: 'system', content: '[WORKFLOW GUIDANCE]\nGreet first.' },
      { role: 'user', content: 'hi' },
    ]);
  });

  it('adds a system note after the tool results, never between an assistant call and its result', () => {
    const result = applyInterventions(toolRound, [note('Ask for the account number.')]);
    expect(result.slice(0, 4)).toEqual(toolRound);
    expect(result[4]).toEqual({ role: 'user', content: '[System Note] Ask for the account number.' });
    assertProviderValid(result);
  });

  it('rides a reminder on the last user turn, or adds one after tool results', () => {
    const onUser = applyInterventions([{ role: 'user', content: 'Refund please.' }], [reminder('Identity is not verified.')]);
    expect(onUser).toEqual([{ role: 'user', content: 'Refund please.\n\n[Context Reminder] Identity is not verified.' }]);
    const afterTools = applyInterventions(toolRound, [reminder('Identity is not verified.')]);
    expect(afterTools.at(-1)).toEqual({ role: 'user', content: '[Context Reminder] Identity is not verified.' });
    assertProviderValid(afterTools);
  });

  it('never leaves an assistant message last', () => {
    const prefill: ChatMessage[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'Hello' },
    ];
    for (const intervention of [note('x'), reminder('x')]) assertProviderValid(applyInterventions(prefill, [intervention]));
  });

  it('merges several interventions of one strategy into one block', () => {
    const result = applyInterventions([{ role: 'user', content: 'q' }], [guidance('One.'), guidance('Two.'), note('Three.')]);
    expect(result).toEqual([
      { role: 'system', content: '[WORKFLOW GUIDANCE]\nOne.\n\nTwo.' },
      { role: 'user', content: 'q' },
      { role: 'user', content: '[System Note] Three.' },
    ]);
  });

  it('leaves the request unchanged for hard blocks, which the caller refuses instead', () => {
    const result = applyInterventions(toolRound, [{ name: 'b', strategy: 'hard-block', text: 'stop' }]);
    expect(result).toEqual(toolRound);
  });
});
