import { describe, expect, it } from 'vitest';
import { convertMessages, TRANSCRIPT_ROLES } from '../../src/audit/index.js';
import { toolCall } from './helpers.js';

describe('convertMessages', () => {
  it('converts every role, reading developer as system and keeping tool call ids', () => {
    const { messages, warnings, errors } = convertMessages([
      { role: 'system', content: 'Be brief.' },
      { role: 'developer', content: 'Verify first.' },
      { role: 'user', content: 'Refund NW-1' },
      { role: 'assistant', content: null, tool_calls: [toolCall('issue_refund', { order_id: 'NW-1' }, 'c1')] },
      { role: 'tool', tool_call_id: 'c1', name: 'issue_refund', content: '{"ok":true}' },
    ]);
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    expect(messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'system', content: 'Verify first.' },
      { role: 'user', content: 'Refund NW-1' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'issue_refund', args: { order_id: 'NW-1' } }] },
      { role: 'tool', content: '{"ok":true}', toolCallId: 'c1', name: 'issue_refund' },
    ]);
  });

  it('joins text parts and carries the others', () => {
    const image = { type: 'image_url', image_url: { url: 'https://example.com/a.png' } };
    const { messages } = convertMessages([{ role: 'user', content: [{ type: 'text', text: 'one' }, image, { type: 'text', text: 'two' }] }]);
    expect(messages).toEqual([{ role: 'user', content: 'one\ntwo', parts: [image] }]);
  });

  it('reads an assistant message with only non-text content as no text', () => {
    const { messages, errors } = convertMessages([{ role: 'assistant', content: [{ type: 'refusal', refusal: 'no' }] }]);
    expect(errors).toEqual([]);
    expect(messages[0]).toMatchObject({ role: 'assistant', content: '' });
  });

  it('names an unknown role and lists the valid ones', () => {
    const { errors } = convertMessages([{ role: 'user', content: 'hi' }, { role: 'bot', content: 'hello' }]);
    expect(errors).toEqual(["messages[1]: unknown role 'bot'; valid roles: system, developer, user, assistant, tool"]);
    expect(TRANSCRIPT_ROLES).toEqual(['system', 'developer', 'user', 'assistant', 'tool']);
  });

  it('explains a missing role, a non-object message and content of the wrong type', () => {
    const { errors } = convertMessages([{ content: 'x' }, 'hello', { role: 'user', content: 42 }, { role: 7 }]);
    expect(errors).toEqual([
      'messages[0]: missing role; valid roles: system, developer, user, assistant, tool',
      'messages[1]: expected a message object, got a string',
      'messages[2].content: expected a string, null or an array of content parts, got a number',
      'messages[3].role: expected a string, got a number; valid roles: system, developer, user, assistant, tool',
    ]);
  });

  it('hints at JSONL when a whole session sits where a message should', () => {
    const { errors } = convertMessages([{ id: 's1', messages: [] }]);
    expect(errors[0]).toContain('this looks like a whole session: put one { "id", "messages" } per line in a .jsonl file');
  });

  it('summarises a flood of bad messages after five', () => {
    const { errors } = convertMessages(Array.from({ length: 9 }, () => ({ role: 'bot' })));
    expect(errors).toHaveLength(6);
    expect(errors[5]).toBe('... and 4 more messages with errors');
  });

  it('audits tool calls whose arguments are not JSON with empty arguments and a warning', () => {
    const { messages, warnings, errors } = convertMessages([
      { role: 'assistant', content: null, tool_calls: [toolCall('issue_refund', '{"order_id": "NW-1", ')] },
      { role: 'assistant', content: null, tool_calls: [toolCall('cancel_order', '[1, 2]')] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c3', type: 'function', function: { name: 'update_address', arguments: { city: 'Oslo' } } }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c4', type: 'function', function: { name: 'lookup_customer' } }] },
    ]);
    expect(errors).toEqual([]);
    expect(messages.map((message) => message.role === 'assistant' && message.toolCalls?.[0]?.args)).toEqual([{}, {}, { city: 'Oslo' }, {}]);
    expect(warnings).toEqual([
      { message: 0, text: expect.stringMatching(/^messages\[0\]\.tool_calls\[0\] \(issue_refund\): arguments are not valid JSON \(.+\); audited with empty arguments$/) },
      { message: 1, text: 'messages[1].tool_calls[0] (cancel_order): arguments are an array, not a JSON object; audited with empty arguments' },
    ]);
  });

  it('rejects a tool call without a function name and skips non-function tool calls with a warning', () => {
    const missing = convertMessages([{ role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { arguments: '{}' } }] }]);
    expect(missing.errors).toEqual(['messages[0].tool_calls[0]: missing function.name']);
    const custom = convertMessages([{ role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'custom', custom: { name: 'x', input: '' } }] }]);
    expect(custom.errors).toEqual([]);
    expect(custom.warnings).toEqual([{ message: 0, text: "messages[0].tool_calls[0]: tool call type 'custom' is not 'function'; ignored" }]);
    expect(convertMessages([{ role: 'assistant', content: '', tool_calls: {} }]).errors).toEqual(['messages[0].tool_calls: expected an array, got an object']);
  });

  it('keeps a 10 MB argument string out of the warning', () => {
    const { warnings } = convertMessages([{ role: 'assistant', content: null, tool_calls: [toolCall('issue_refund', `{"x": ${'y'.repeat(10_000_000)}`)] }]);
    expect(warnings[0]!.text.length).toBeLessThan(300);
  });
});
