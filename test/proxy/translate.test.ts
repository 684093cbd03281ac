/** OpenAI JSON to the core's messages and back: interventions carried onto the original JSON. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyInterventions, type RenderedIntervention } from '../../src/index.js';
import { chatRequestProblem, toChatMessages, turnOf, withEdits } from '../../src/proxy/index.js';
import type { OpenAIMessage } from '../../src/proxy/openai-types.js';

const guidance: RenderedIntervention = { name: 'verify_first', strategy: 'system-prompt-append', text: 'Verify identity first.' };
const note: RenderedIntervention = { name: 'keep_internal', strategy: 'user-message-inject', text: 'Do not reveal internal notes.' };
const reminder: RenderedIntervention = { name: 'remind', strategy: 'context-reminder', text: 'You are in verify_identity.' };

describe('withEdits', () => {
  it('keeps unedited messages as sent (parts, names, extra fields) and appends to edited ones', () => {
    const image = { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } };
    const original: OpenAIMessage[] = [
      { role: 'developer', content: 'Be brief.', name: 'ops' },
      { role: 'user', content: [{ type: 'text', text: 'Is this mug broken?' }, image], cache_control: { type: 'ephemeral' } },
    ];
    const chat = toChatMessages(original);
    const edited = withEdits(original, chat, applyInterventions(chat, [guidance, reminder, note]));
    expect(edited[0]).toEqual({ role: 'developer', content: 'Be brief.\n\n[WORKFLOW GUIDANCE]\nVerify identity first.', name: 'ops' });
    expect(edited[1]).toEqual({ role: 'user', content: [{ type: 'text', text: 'Is this mug broken?' }, image, { type: 'text', text: '[Context Reminder] You are in verify_identity.' }], cache_control: { type: 'ephemeral' } });
    expect(edited[2]).toEqual({ role: 'user', content: '[System Note] Do not reveal internal notes.' });
    expect(original[0]!.content).toBe('Be brief.'); // the request itself is never mutated
  });

  it('round-trips: reading the edited JSON back gives exactly what the monitor asked for (property)', () => {
    const message = fc.oneof(
      fc.record({ role: fc.constantFrom('system', 'user', 'developer'), content: fc.string() }),
      fc.record({ role: fc.constant('assistant'), content: fc.string() }),
      fc.record({ role: fc.constant('tool'), content: fc.string(), tool_call_id: fc.string({ minLength: 1 }) }),
    );
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 8 }), fc.subarray([guidance, note, reminder]), (messages, interventions) => {
        const chat = toChatMessages(messages as OpenAIMessage[]);
        const wanted = applyInterventions(chat, interventions);
        expect(toChatMessages(withEdits(messages as OpenAIMessage[], chat, wanted))).toEqual(toChatMessages(wanted.map((entry) => ({ role: entry.role, content: entry.content, ...('toolCallId' in entry && entry.toolCallId !== undefined ? { tool_call_id: entry.toolCallId } : {}) }))));
      }),
      { numRuns: 500 },
    );
  });
});

describe('reading requests and responses', () => {
  it('reads tool calls with unparseable arguments as empty arguments, and skips calls without a name', () => {
    expect(turnOf({ role: 'assistant', content: null, tool_calls: [{ id: 'a', function: { name: 'issue_refund', arguments: '{bad' } }, { id: 'b', function: {} }] })).toEqual({
      content: '',
      toolCalls: [{ id: 'a', name: 'issue_refund', args: {} }],
    });
  });

  it('accepts any chat request with a non-empty messages array', () => {
    expect(chatRequestProblem({ model: 'x', messages: [{ role: 'user', content: 'hi' }], tools: [] })).toBeUndefined();
  });
});
