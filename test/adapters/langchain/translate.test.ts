import { AIMessage, ChatMessage as LangChainChatMessage, FunctionMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import {
  fromChatMessage,
  fromChatMessages,
  hostOf,
  textOf,
  toAssistantTurn,
  toChatMessage,
  toChatMessages,
  toToolCall,
} from '../../../adapters/langchain/index.js';
import { applyInterventions } from '../../../src/index.js';

const image = { type: 'image_url', image_url: { url: 'https://example.com/receipt.png' } };

describe('LangChain messages to neutral messages', () => {
  it('maps system, human, AI, tool, function and generic messages to their roles', () => {
    const messages = [
      new SystemMessage('Be brief.'),
      new HumanMessage('Refund A1'),
      new AIMessage({ content: 'Checking.', tool_calls: [{ id: 'c1', name: 'lookup', args: { order: 'A1' }, type: 'tool_call' }] }),
      new ToolMessage({ content: 'found', tool_call_id: 'c1', name: 'lookup' }),
      new ToolMessage({ content: 'boom', tool_call_id: 'c2', status: 'error' }),
      new FunctionMessage({ content: '42', name: 'legacy' }),
      new LangChainChatMessage({ content: 'as the assistant', role: 'assistant' }),
      new LangChainChatMessage({ content: 'as a developer', role: 'developer' }),
      new LangChainChatMessage({ content: 'as someone', role: 'narrator' }),
    ];
    // JSON drops the link to the LangChain message, which rides under a symbol.
    expect(JSON.parse(JSON.stringify(toChatMessages(messages)))).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Refund A1' },
      { role: 'assistant', content: 'Checking.', toolCalls: [{ id: 'c1', name: 'lookup', args: { order: 'A1' } }] },
      { role: 'tool', content: 'found', toolCallId: 'c1', name: 'lookup' },
      { role: 'tool', content: 'boom', toolCallId: 'c2', isError: true },
      { role: 'tool', content: '42', name: 'legacy' },
      { role: 'assistant', content: 'as the assistant' },
      { role: 'system', content: 'as a developer' },
      { role: 'user', content: 'as someone' },
    ]);
  });

  it('reads the text of content blocks and keeps every block, images included, in parts', () => {
    const human = new HumanMessage({ content: [{ type: 'text', text: 'Here is ' }, image, { type: 'text', text: 'my receipt.' }] });
    const neutral = toChatMessage(human);
    expect(neutral).toMatchObject({ role: 'user', content: 'Here is my receipt.' });
    expect(neutral.parts).toBe(human.content);
    expect(hostOf(neutral)).toBe(human);
  });

  it('drops RemoveMessage markers, which no model reads', () => {
    expect(toChatMessages([new HumanMessage('hi'), new RemoveMessage({ id: 'x' })]).map((message) => message.content)).toEqual(['hi']);
  });

  it('reads a response as an assistant turn; malformed arguments become {}', () => {
    const response = new AIMessage({
      content: [{ type: 'text', text: 'Let me check.' }],
      tool_calls: [
        { id: 'c1', name: 'lookup', args: { order: 'A1' }, type: 'tool_call' },
        { name: 'verify', args: 'not json' as never, type: 'tool_call' },
      ],
    });
    expect(toAssistantTurn(response)).toEqual({
      content: 'Let me check.',
      toolCalls: [
        { id: 'c1', name: 'lookup', args: { order: 'A1' } },
        { name: 'verify', args: {} },
      ],
    });
    expect(toToolCall({ name: 'x', args: ['a'] })).toEqual({ name: 'x', args: {} });
    expect(textOf(undefined)).toBe('');
  });
});

describe('neutral messages back to LangChain', () => {
  it('returns the very same messages the core left alone', () => {
    const messages = [new SystemMessage('Be brief.'), new HumanMessage('Refund A1'), new AIMessage('ok')];
    const back = fromChatMessages(toChatMessages(messages));
    back.forEach((message, index) => expect(message).toBe(messages[index]));
  });

  it('appends to string content and keeps the id, name and metadata of an edited message', () => {
    const system = new SystemMessage({ content: 'Be brief.', id: 'sys', name: 'rules', additional_kwargs: { x: 1 } });
    const [edited] = applyInterventions(toChatMessages([system]), [{ name: 'verify', strategy: 'system-prompt-append', text: 'Verify first.' }]);
    const back = fromChatMessage(edited!);
    expect(back).toBeInstanceOf(SystemMessage);
    expect(back).toMatchObject({ content: 'Be brief.\n\n[WORKFLOW GUIDANCE]\nVerify first.', id: 'sys', name: 'rules', additional_kwargs: { x: 1 } });
    expect(system.content).toBe('Be brief.'); // the original is untouched
  });

  it('appends a text block after the original blocks, so images and cache markers stay', () => {
    const cached = { type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } };
    const system = new SystemMessage({ content: [cached] });
    const human = new HumanMessage({ content: [{ type: 'text', text: 'Look: ' }, image] });
    const edited = applyInterventions(toChatMessages([system, human]), [
      { name: 'a', strategy: 'system-prompt-append', text: 'Verify first.' },
      { name: 'b', strategy: 'context-reminder', text: 'Stay on topic.' },
    ]);
    const [backSystem, backHuman] = fromChatMessages(edited);
    expect(backSystem!.content).toEqual([cached, { type: 'text', text: '\n\n[WORKFLOW GUIDANCE]\nVerify first.' }]);
    expect(backHuman).toBeInstanceOf(HumanMessage);
    expect(backHuman!.content).toEqual([{ type: 'text', text: 'Look: ' }, image, { type: 'text', text: '\n\n[Context Reminder] Stay on topic.' }]);
  });

  it('makes new messages for the ones the core adds: a system message, a note after tool results', () => {
    const messages = [new HumanMessage('Refund A1'), new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'lookup', args: {}, type: 'tool_call' }] }), new ToolMessage({ content: 'found', tool_call_id: 'c1' })];
    const edited = applyInterventions(toChatMessages(messages), [
      { name: 'a', strategy: 'system-prompt-append', text: 'Verify first.' },
      { name: 'b', strategy: 'user-message-inject', text: 'Do not reveal internal notes.' },
    ]);
    const back = fromChatMessages(edited);
    expect(back.map((message) => message.getType())).toEqual(['system', 'human', 'ai', 'tool', 'human']);
    expect(back[0]!.content).toBe('[WORKFLOW GUIDANCE]\nVerify first.');
    expect(back.slice(1, 4)).toEqual(messages.map((message) => expect.toBeOneOf([message])));
    expect(back[4]!.content).toBe('[System Note] Do not reveal internal notes.');
  });

  it('builds every kind from a neutral message it never saw', () => {
    const back = fromChatMessages([
      { role: 'system', content: 's' },
      { role: 'user', content: 'u' },
      { role: 'assistant', content: 'a', toolCalls: [{ id: 'c1', name: 'lookup', args: { q: 1 } }] },
      { role: 'tool', content: 't', toolCallId: 'c1', name: 'lookup', isError: true },
      { role: 'user', content: 'with a picture', parts: [image] },
    ]);
    expect(back.map((message) => message.getType())).toEqual(['system', 'human', 'ai', 'tool', 'human']);
    expect((back[2] as AIMessage).tool_calls).toEqual([{ id: 'c1', name: 'lookup', args: { q: 1 }, type: 'tool_call' }]);
    expect(back[3]).toMatchObject({ tool_call_id: 'c1', name: 'lookup', status: 'error' });
    expect(back[4]!.content).toEqual([image, { type: 'text', text: 'with a picture' }]);
  });
});
