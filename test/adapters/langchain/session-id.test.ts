import { AIMessage, ChatMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { resolveSessionId, toChatMessages } from '../../../adapters/langchain/index.js';
import { conversationOpening } from '../../../adapters/langchain/translate.js';
import { conversationSessionId } from '../../../src/index.js';

describe('session ids', () => {
  it('takes the option, then the thread id, then metadata.session_id, then the fallback', () => {
    const fallback = () => 'hashed';
    expect(resolveSessionId({ option: 'o', threadId: 't', metadataSessionId: 'm', fallback })).toBe('o');
    expect(resolveSessionId({ threadId: 't', metadataSessionId: 'm', fallback })).toBe('t');
    expect(resolveSessionId({ threadId: '', metadataSessionId: 'm', fallback })).toBe('m');
    expect(resolveSessionId({ threadId: 7, fallback })).toBe('7');
    expect(resolveSessionId({ threadId: { not: 'an id' }, fallback })).toBe('hashed');
  });

  it("names an unnamed conversation by the core's hash of its opening, whatever comes after", () => {
    const thread = [new SystemMessage('You are a support agent.'), new HumanMessage('Refund my order.'), new AIMessage('Sure.'), new HumanMessage('Thanks.')];
    const id = conversationSessionId(conversationOpening(thread));
    expect(id).toBe(conversationSessionId(toChatMessages(thread)));
    expect(id).toBe(conversationSessionId(conversationOpening(thread.slice(0, 2))));
    expect(id).toBe(conversationSessionId([{ role: 'system', content: 'You are a support agent.' }, { role: 'user', content: 'Refund my order.' }]));
  });

  it('takes a system prompt kept apart from the thread, as createAgent keeps it', () => {
    const thread = [new HumanMessage('Refund my order.')];
    expect(conversationOpening(thread, 'You are a support agent.')).toEqual([
      { role: 'system', content: 'You are a support agent.' },
      expect.objectContaining({ role: 'user', content: 'Refund my order.' }),
    ]);
    // An empty prompt names the conversation as no prompt does.
    expect(conversationSessionId(conversationOpening(thread, ''))).toBe(conversationSessionId(conversationOpening(thread)));
    expect(conversationOpening([new ChatMessage('Be brief.', 'system'), ...thread]).map((message) => message.role)).toEqual(['system', 'user']);
  });
});
