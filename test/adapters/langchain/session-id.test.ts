import { describe, expect, it } from 'vitest';
import { conversationSessionId, resolveSessionId } from '../../../adapters/langchain/index.js';

describe('session ids', () => {
  it('takes the option, then the thread id, then metadata.session_id, then the fallback', () => {
    const fallback = () => 'hashed';
    expect(resolveSessionId({ option: 'o', threadId: 't', metadataSessionId: 'm', fallback })).toBe('o');
    expect(resolveSessionId({ threadId: 't', metadataSessionId: 'm', fallback })).toBe('t');
    expect(resolveSessionId({ threadId: '', metadataSessionId: 'm', fallback })).toBe('m');
    expect(resolveSessionId({ threadId: 7, fallback })).toBe('7');
    expect(resolveSessionId({ threadId: { not: 'an id' }, fallback })).toBe('hashed');
  });

  it('hashes a conversation the same way every time, and two openings apart', () => {
    const id = conversationSessionId('You are a support agent.', 'Refund my order.');
    expect(id).toMatch(/^panoptes-[0-9a-f]{16}$/);
    expect(conversationSessionId('You are a support agent.', 'Refund my order.')).toBe(id);
    expect(conversationSessionId('You are a support agent.', 'Refund my order!')).not.toBe(id);
    expect(conversationSessionId('ab', 'c')).not.toBe(conversationSessionId('a', 'bc'));
    expect(conversationSessionId('', '')).toMatch(/^panoptes-[0-9a-f]{16}$/);
  });
});
