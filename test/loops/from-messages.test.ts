import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/messages/index.js';
import { loopStepsFromMessages, toolResultsAfterLastTurn } from '../../src/loops/index.js';
import { detectorFor } from './helpers.js';

const transcript: ChatMessage[] = [
  { role: 'system', content: 'You are a travel agent.' },
  { role: 'user', content: 'Find me a flight.' },
  { role: 'assistant', content: 'Searching.', toolCalls: [{ id: 'c1', name: 'search', args: { to: 'CDG' } }] },
  { role: 'tool', content: 'no flights', toolCallId: 'c1', name: 'search' },
  { role: 'assistant', content: '', toolCalls: [{ id: 'c2', name: 'search', args: { to: 'CDG' } }] },
  { role: 'tool', content: 'timeout', toolCallId: 'c2', isError: true },
];

describe('steps from messages', () => {
  it('makes one step per assistant message, with the results that follow it', () => {
    expect(loopStepsFromMessages(transcript)).toEqual([
      { text: 'Searching.', toolCalls: [{ id: 'c1', name: 'search', args: { to: 'CDG' } }], toolResults: [{ content: 'no flights', toolCallId: 'c1', name: 'search' }] },
      { text: '', toolCalls: [{ id: 'c2', name: 'search', args: { to: 'CDG' } }], toolResults: [{ content: 'timeout', toolCallId: 'c2', isError: true }] },
    ]);
  });

  it('takes the results after the last assistant message, as a host sees them before the next call', () => {
    expect(toolResultsAfterLastTurn(transcript)).toEqual([{ content: 'timeout', toolCallId: 'c2', isError: true }]);
    expect(toolResultsAfterLastTurn(transcript.slice(0, 3))).toEqual([]);
  });

  it('feeds the detector either way with the same outcome', () => {
    const failing = (id: string): ChatMessage[] => [
      { role: 'assistant', content: '', toolCalls: [{ id, name: 'book', args: { flight: 'AF1' } }] },
      { role: 'tool', content: 'error 500', toolCallId: id, isError: true },
    ];
    const messages = [...failing('a'), ...failing('b'), ...failing('c')];
    const whole = detectorFor();
    const wholeReports = loopStepsFromMessages(messages).map((step) => whole.observeStructural('s1', step));
    const split = detectorFor();
    const splitReports = [];
    for (let end = 1; end <= messages.length; end += 2) {
      const turn = messages[end - 1] as Extract<ChatMessage, { role: 'assistant' }>;
      splitReports.push(split.observeStructural('s1', { text: turn.content, toolCalls: turn.toolCalls ?? [] }));
      splitReports.push(split.observeStructural('s1', { toolResults: toolResultsAfterLastTurn(messages.slice(0, end + 1)) }));
    }
    expect(wholeReports.at(-1)).toMatchObject({ kind: 'repeated-error', step: 3 });
    expect(splitReports.at(-1)).toEqual(wholeReports.at(-1));
  });
});
