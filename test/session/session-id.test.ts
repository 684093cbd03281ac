import { describe, expect, it } from 'vitest';
import { conversationSessionId, type ChatMessage } from '../../src/index.js';

const opening: ChatMessage[] = [
  { role: 'system', content: 'You are a support agent.' },
  { role: 'user', content: 'Refund order 42.' },
];

describe('conversationSessionId', () => {
  it('is the same every time, in a fixed format', () => {
    const id = conversationSessionId(opening);
    expect(id).toMatch(/^conversation-[0-9a-f]{28}$/);
    expect(conversationSessionId(opening.map((message) => ({ ...message })))).toBe(id);
    expect(conversationSessionId([])).toMatch(/^conversation-[0-9a-f]{28}$/);
  });

  it('is stable across turns: nothing after the first user message counts', () => {
    const later: ChatMessage[] = [
      ...opening,
      { role: 'assistant', content: 'Sure.', toolCalls: [{ id: 'c1', name: 'verify_identity', args: {} }] },
      { role: 'tool', content: 'verified', toolCallId: 'c1' },
      { role: 'system', content: '[WORKFLOW GUIDANCE] Verify first.' },
      { role: 'user', content: 'Thanks.' },
    ];
    expect(conversationSessionId(later)).toBe(conversationSessionId(opening));
  });

  it('tells conversations apart by their system prompt or their first user message', () => {
    const base = conversationSessionId(opening);
    expect(conversationSessionId([{ role: 'system', content: 'You are a sales agent.' }, opening[1]!])).not.toBe(base);
    expect(conversationSessionId([opening[0]!, { role: 'user', content: 'Refund order 43.' }])).not.toBe(base);
    expect(conversationSessionId([{ role: 'system', content: 'ab' }, { role: 'user', content: 'c' }])).not.toBe(conversationSessionId([{ role: 'system', content: 'a' }, { role: 'user', content: 'bc' }]));
  });

  it('reads the system messages that open the conversation, joined, and no system message as an empty one', () => {
    const split: ChatMessage[] = [{ role: 'system', content: 'You are a support agent.' }, { role: 'system', content: 'Be brief.' }, opening[1]!];
    expect(conversationSessionId(split)).toBe(conversationSessionId([{ role: 'system', content: 'You are a support agent.\nBe brief.' }, opening[1]!]));
    expect(conversationSessionId([opening[1]!])).toBe(conversationSessionId([{ role: 'system', content: '' }, opening[1]!]));
  });

  it('ignores non-text parts: a message is named by its text', () => {
    expect(conversationSessionId([opening[0]!, { ...opening[1]!, parts: [{ type: 'image', url: 'https://x/y.png' }] }])).toBe(conversationSessionId(opening));
  });

  it('keeps 10,000 different openings apart', () => {
    const ids = new Set(Array.from({ length: 10_000 }, (_, index) => conversationSessionId([{ role: 'user', content: `conversation ${index}` }])));
    expect(ids.size).toBe(10_000);
  });
});
