import { describe, expect, it } from 'vitest';
import type { Prompt } from '../../../adapters/ai-sdk/host-types.js';
import { argsOf, toAssistantTurn, toChatMessages, withInterventions } from '../../../adapters/ai-sdk/translate.js';
import { applyInterventions, type RenderedIntervention } from '../../../src/index.js';

const image = { type: 'file' as const, data: new Uint8Array([1, 2, 3]), mediaType: 'image/png', providerOptions: { openai: { imageDetail: 'low' } } };

/** One of every message and part kind of the provider-level prompt. */
const prompt: Prompt = [
  { role: 'system', content: 'You are a support agent.', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } },
  { role: 'user', content: [{ type: 'text', text: 'Hello.' }, image, { type: 'text', text: 'Here is the receipt.' }] },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'Need to verify first.' },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'verify_identity', input: { orderId: '42' }, providerOptions: { openai: { itemId: 'x' } } },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'web_search', input: { q: 'refunds' }, providerExecuted: true },
      { type: 'tool-result', toolCallId: 'c2', toolName: 'web_search', output: { type: 'json', value: { hits: 1 } } },
    ],
  },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'c1', toolName: 'verify_identity', output: { type: 'json', value: { verified: true } } },
      { type: 'tool-approval-response', approvalId: 'a1', approved: false, reason: 'no' },
    ],
  },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'c3', toolName: 'a', output: { type: 'text', value: 'plain' } },
      { type: 'tool-result', toolCallId: 'c4', toolName: 'b', output: { type: 'error-text', value: 'refused' } },
      { type: 'tool-result', toolCallId: 'c5', toolName: 'c', output: { type: 'error-json', value: { code: 1 } } },
      { type: 'tool-result', toolCallId: 'c6', toolName: 'd', output: { type: 'execution-denied' } },
      { type: 'tool-result', toolCallId: 'c7', toolName: 'e', output: { type: 'content', value: [{ type: 'text', text: 'seen' }, { type: 'image-url', url: 'https://x/y.png' }] } },
    ],
  },
  { role: 'user', content: [{ type: 'text', text: 'Thanks.' }] },
];

const guidance: RenderedIntervention = { name: 'verify_first', strategy: 'system-prompt-append', text: 'Verify first.' };
const reminder: RenderedIntervention = { name: 'r', strategy: 'context-reminder', text: 'Remember the order.' };
const note: RenderedIntervention = { name: 'n', strategy: 'user-message-inject', text: 'Do not leak.' };

describe('toChatMessages', () => {
  it('converts every message kind, text to content and everything else into parts', () => {
    const { messages, origins } = toChatMessages(prompt);
    expect(messages).toEqual([
      { role: 'system', content: 'You are a support agent.' },
      { role: 'user', content: 'Hello.\nHere is the receipt.', parts: [image] },
      {
        role: 'assistant',
        content: 'Let me check.',
        toolCalls: [
          { id: 'c1', name: 'verify_identity', args: { orderId: '42' } },
          { id: 'c2', name: 'web_search', args: { q: 'refunds' } },
        ],
        parts: [prompt[2]!.content[0], prompt[2]!.content[4]],
      },
      { role: 'tool', content: '{"verified":true}', toolCallId: 'c1', name: 'verify_identity', isError: false, parts: [prompt[3]!.content[0]] },
      { role: 'tool', content: '', parts: [prompt[3]!.content[1]] },
      { role: 'tool', content: 'plain', toolCallId: 'c3', name: 'a', isError: false, parts: [prompt[4]!.content[0]] },
      { role: 'tool', content: 'refused', toolCallId: 'c4', name: 'b', isError: true, parts: [prompt[4]!.content[1]] },
      { role: 'tool', content: '{"code":1}', toolCallId: 'c5', name: 'c', isError: true, parts: [prompt[4]!.content[2]] },
      { role: 'tool', content: 'Tool execution denied.', toolCallId: 'c6', name: 'd', isError: true, parts: [prompt[4]!.content[3]] },
      { role: 'tool', content: 'seen', toolCallId: 'c7', name: 'e', isError: false, parts: [prompt[4]!.content[4]] },
      { role: 'user', content: 'Thanks.' },
    ]);
    expect(origins).toEqual([0, 1, 2, 3, 3, 4, 4, 4, 4, 4, 5]);
  });
});

describe('withInterventions', () => {
  const edit = (input: Prompt, interventions: RenderedIntervention[]) => {
    const converted = toChatMessages(input);
    return withInterventions(input, converted, applyInterventions(converted.messages, interventions));
  };

  it('returns the host message objects themselves where nothing changed', () => {
    const converted = toChatMessages(prompt);
    const result = withInterventions(prompt, converted, converted.messages);
    expect(result).toHaveLength(prompt.length);
    result.forEach((message, index) => expect(message).toBe(prompt[index]));
  });

  it('appends guidance to the system message and keeps its provider options', () => {
    const result = edit(prompt, [guidance]);
    expect(result[0]).toEqual({ role: 'system', content: 'You are a support agent.\n\n[WORKFLOW GUIDANCE]\nVerify first.', providerOptions: prompt[0]!.providerOptions });
    result.slice(1).forEach((message, index) => expect(message).toBe(prompt[index + 1]));
  });

  it('creates a system message when there is none, before everything else', () => {
    const result = edit(prompt.slice(1), [guidance]);
    expect(result[0]).toEqual({ role: 'system', content: '[WORKFLOW GUIDANCE]\nVerify first.' });
    result.slice(1).forEach((message, index) => expect(message).toBe(prompt[index + 1]));
  });

  it('adds a reminder to the last user turn as a text part of its own, after its files', () => {
    const input: Prompt = [prompt[0]!, prompt[1]!];
    const result = edit(input, [reminder]);
    expect(result[1]).toEqual({ role: 'user', content: [...(prompt[1] as { content: unknown[] }).content, { type: 'text', text: '[Context Reminder] Remember the order.' }] });
    expect(result[0]).toBe(prompt[0]);
  });

  it('appends a note after the last tool result, never between a call and its results', () => {
    const input = prompt.slice(0, 5);
    const result = edit(input, [note]);
    expect(result.slice(0, 5)).toEqual(input);
    result.slice(0, 5).forEach((message, index) => expect(message).toBe(input[index]));
    expect(result[5]).toEqual({ role: 'user', content: [{ type: 'text', text: '[System Note] Do not leak.' }] });
  });

  it('applies all three strategies at once', () => {
    const result = edit(prompt, [guidance, reminder, note]);
    expect(result.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'user', 'user']);
    expect(result[5]).toEqual({ role: 'user', content: [{ type: 'text', text: 'Thanks.' }, { type: 'text', text: '[Context Reminder] Remember the order.' }] });
    expect(result[6]).toEqual({ role: 'user', content: [{ type: 'text', text: '[System Note] Do not leak.' }] });
  });
});

describe('toAssistantTurn', () => {
  it('joins the text, keeps the reasoning apart and reads the tool calls, provider-executed ones included', () => {
    expect(
      toAssistantTurn([
        { type: 'reasoning', text: 'hmm' },
        { type: 'text', text: 'Checking.' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'verify_identity', input: '{"orderId":"42"}' },
        { type: 'text', text: 'One moment.' },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'web_search', input: '{}', providerExecuted: true },
        { type: 'tool-result', toolCallId: 'c2', toolName: 'web_search', result: { hits: 0 } },
      ]),
    ).toEqual({
      content: 'Checking.\nOne moment.',
      reasoning: 'hmm',
      toolCalls: [
        { id: 'c1', name: 'verify_identity', args: { orderId: '42' } },
        { id: 'c2', name: 'web_search', args: {} },
      ],
    });
  });

  it('passes the names of the tools the call offered on, for the unknown-tool check', () => {
    expect(toAssistantTurn([{ type: 'text', text: 'Hi.' }], ['verify_identity'])).toEqual({ content: 'Hi.', toolCalls: [], availableTools: ['verify_identity'] });
  });

  it('reads malformed or non-object tool input as no arguments', () => {
    expect(argsOf('{not json')).toEqual({});
    expect(argsOf('"a string"')).toEqual({});
    expect(argsOf('[1,2]')).toEqual({});
    expect(argsOf(undefined)).toEqual({});
    expect(argsOf({ a: 1 })).toEqual({ a: 1 });
  });
});
