/**
 * The monitor's edits carried over to the Responses API's and Anthropic's requests: the system prompt is
 * `instructions` / `system`; a reminder rides on the last user message (as a part when its content is a list); a note
 * is a message of its own at the end (joined to the last user message on Anthropic, which takes turns in
 * alternation); nothing else changes.
 */
import { describe, expect, it } from 'vitest';
import { applyInterventions, type RenderedIntervention } from '../../src/intervene/index.js';
import { messagesEdited, requestMessages, type MessagesRequest } from '../../src/proxy/routes/anthropic/request.js';
import { completionEdited, completionMessages } from '../../src/proxy/routes/completions/request.js';
import { responsesEdited, responsesMessages, type ResponsesRequest } from '../../src/proxy/routes/responses/request.js';

const GUIDANCE: RenderedIntervention = { name: 'g', strategy: 'system-prompt-append', text: 'Verify first.' };
const REMINDER: RenderedIntervention = { name: 'r', strategy: 'context-reminder', text: 'Stay on topic.' };
const NOTE: RenderedIntervention = { name: 'n', strategy: 'user-message-inject', text: 'Check the order.' };

function editResponses(body: ResponsesRequest, interventions: RenderedIntervention[]) {
  const chat = responsesMessages(body).messages;
  return responsesEdited(body, chat, applyInterventions(chat, interventions));
}

function editMessages(body: MessagesRequest, interventions: RenderedIntervention[]) {
  const chat = requestMessages(body).messages;
  return messagesEdited(body, chat, applyInterventions(chat, interventions));
}

describe('Responses requests', () => {
  const call = { type: 'function_call', call_id: 'c1', name: 'verify_identity', arguments: '{}' };
  const output = { type: 'function_call_output', call_id: 'c1', output: 'ok' };

  it('take guidance in instructions, appended or as the whole of them', () => {
    expect(editResponses({ instructions: 'Be brief.', input: 'Hi' }, [GUIDANCE])).toEqual({ instructions: 'Be brief.\n\n[WORKFLOW GUIDANCE]\nVerify first.', input: 'Hi' });
    expect(editResponses({ input: 'Hi' }, [GUIDANCE])).toEqual({ instructions: '[WORKFLOW GUIDANCE]\nVerify first.', input: 'Hi' });
  });

  it('take guidance in a developer item when that is their system prompt', () => {
    const body = { input: [{ role: 'developer', content: 'Be brief.' }, { role: 'user', content: 'Hi' }] };
    expect(editResponses(body, [GUIDANCE]).input).toEqual([{ role: 'developer', content: 'Be brief.\n\n[WORKFLOW GUIDANCE]\nVerify first.' }, { role: 'user', content: 'Hi' }]);
  });

  it('take a reminder on the last user item: text appended, or an input_text part', () => {
    expect(editResponses({ input: 'Hi' }, [REMINDER]).input).toEqual([{ role: 'user', content: 'Hi\n\n[Context Reminder] Stay on topic.' }]);
    const parts = { input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] }] };
    expect(editResponses(parts, [REMINDER]).input).toEqual([{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }, { type: 'input_text', text: '[Context Reminder] Stay on topic.' }] }]);
  });

  it('take a note after the last item, after the outputs of calls, leaving the items as sent', () => {
    const reasoning = { type: 'reasoning', id: 'rs_1', summary: [] };
    const body = { input: [{ role: 'user', content: 'Hi' }, reasoning, call, output] };
    expect(editResponses(body, [NOTE]).input).toEqual([{ role: 'user', content: 'Hi' }, reasoning, call, output, { role: 'user', content: '[System Note] Check the order.' }]);
  });

  it('read a message and its calls as one assistant turn', () => {
    const message = { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.', annotations: [] }] };
    expect(responsesMessages({ input: [{ role: 'user', content: 'Hi' }, message, call, output] }).messages).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Checking.', toolCalls: [{ id: 'c1', name: 'verify_identity', args: {} }] },
      { role: 'tool', content: 'ok', toolCallId: 'c1' },
    ]);
  });
});

describe('Anthropic requests', () => {
  const toolTurn = { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'verify_identity', input: {} }] };
  const results = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] };

  it('take guidance in system, appended (a text block to a list) or as the whole of it', () => {
    expect(editMessages({ system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] }, [GUIDANCE]).system).toBe('Be brief.\n\n[WORKFLOW GUIDANCE]\nVerify first.');
    expect(editMessages({ system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }], messages: [{ role: 'user', content: 'Hi' }] }, [GUIDANCE]).system).toEqual([
      { type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: '[WORKFLOW GUIDANCE]\nVerify first.' },
    ]);
    expect(editMessages({ messages: [{ role: 'user', content: 'Hi' }] }, [GUIDANCE]).system).toBe('[WORKFLOW GUIDANCE]\nVerify first.');
  });

  it('join a reminder or a note to a last user message of tool results, as a text block after them', () => {
    const body = { messages: [{ role: 'user', content: 'Hi' }, toolTurn, results] };
    expect(editMessages(body, [NOTE]).messages).toEqual([{ role: 'user', content: 'Hi' }, toolTurn, { role: 'user', content: [...results.content, { type: 'text', text: '[System Note] Check the order.' }] }]);
    expect(editMessages(body, [REMINDER]).messages.at(-1)).toEqual({ role: 'user', content: [...results.content, { type: 'text', text: '[Context Reminder] Stay on topic.' }] });
  });

  it('read tool results as tool messages and tool_use blocks as calls', () => {
    expect(requestMessages({ system: 'S', messages: [{ role: 'user', content: 'Hi' }, toolTurn, results] }).messages).toEqual([
      { role: 'system', content: 'S' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: '', toolCalls: [{ id: 't1', name: 'verify_identity', args: {} }] },
      { role: 'tool', content: 'ok', toolCallId: 't1' },
    ]);
  });
});

describe('legacy completion requests', () => {
  it('take guidance before the prompt and reminders after it', () => {
    const body = { prompt: 'Customer: hi\nAgent:' };
    const chat = completionMessages(body);
    expect(completionEdited(body, chat, applyInterventions(chat, [GUIDANCE, REMINDER])).prompt).toBe('[WORKFLOW GUIDANCE]\nVerify first.\n\nCustomer: hi\nAgent:\n\n[Context Reminder] Stay on topic.');
    expect(completionEdited({ prompt: ['x'] }, completionMessages({ prompt: ['x'] }), applyInterventions([{ role: 'user', content: 'x' }], [NOTE])).prompt).toEqual(['x\n\n[System Note] Check the order.']);
  });
});
