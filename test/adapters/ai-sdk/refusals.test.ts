/**
 * Issue 25: a refused call as the AI SDK shows it. A human is never asked to approve a call the guards refuse
 * (`needsApproval` runs the guards first), and a refusal is a tool error: the model reads why, and `useChat` shows
 * the tool part as `output-error`.
 */
import { convertToModelMessages, generateText, jsonSchema, readUIMessageStream, stepCountIs, streamText, tool, wrapLanguageModel, type UIMessage } from 'ai';
import { describe, expect, it, vi } from 'vitest';
import { guardTools, panoptesMiddleware, ToolCallRefusedError } from '../../../adapters/ai-sdk/index.js';
import { createMonitor } from '../../../src/index.js';
import { refundSetup } from '../../guards/helpers.js';
import { callTool, recordingLogger, say, sequenceModel, supportTools, workflow } from './fixtures.js';

const bookingInput = jsonSchema<{ booking_id: string }>({ type: 'object', properties: { booking_id: { type: 'string' } }, required: ['booking_id'] });

/** The refund rules with an issue_refund tool that asks the app's user before it runs (`needsApproval: true`). */
function approvedRefunds() {
  const setup = refundSetup({ B1: { status: 'cancelled_by_airline', delay_minutes: 0 } });
  const refunds: string[] = [];
  const tools = {
    issue_refund: tool({ description: 'Refund a booking', inputSchema: bookingInput, needsApproval: true, execute: async ({ booking_id }) => (refunds.push(booking_id), `Refunded ${booking_id}.`) }),
  };
  return { ...setup, tools, refunds };
}

/** A refusal as the step's content holds it: a tool error whose error is Panoptes' refusal, its message the reason. */
const refusalError = (reason: RegExp) => expect.objectContaining({ code: 'TOOL_CALL_DENIED', message: expect.stringMatching(reason) });

describe('guardTools with a tool that needs approval', () => {
  it('does not ask about a call the rules refuse: the call is refused at once and the model reads why', async () => {
    const { sentinel, tools, refunds } = approvedRefunds();
    const mock = sequenceModel(callTool('issue_refund', 'r1', { booking_id: 'B1' }), say('Which booking do you mean?'));
    const result = await generateText({ model: mock, tools: guardTools(tools, { sentinel }), prompt: 'Refund B1.', stopWhen: stepCountIs(3) });

    expect(result.steps[0]!.content.filter((part) => part.type === 'tool-approval-request')).toEqual([]);
    expect(refunds).toEqual([]);
    const error = result.steps[0]!.content.find((part) => part.type === 'tool-error');
    expect(error).toMatchObject({ toolCallId: 'r1', toolName: 'issue_refund', error: refusalError(/^issue_refund is not allowed yet\./) });
    expect(result.text).toBe('Which booking do you mean?');
  });

  it('asks about a call the guards allow, and runs it once approved', async () => {
    const { sentinel, facts, tools, refunds } = approvedRefunds();
    sentinel.bindContext('booking_of_interest', 'B1');
    facts.assert('customer_confirms', ['B1'], { source: 'user' });
    const guarded = guardTools(tools, { sentinel });
    const first = await generateText({ model: sequenceModel(callTool('issue_refund', 'r1', { booking_id: 'B1' })), tools: guarded, prompt: 'Refund B1, I confirm.', stopWhen: stepCountIs(2) });

    const request = first.content.find((part) => part.type === 'tool-approval-request');
    expect(request).toMatchObject({ toolCall: { toolCallId: 'r1', toolName: 'issue_refund' } });
    expect(refunds).toEqual([]);
    await generateText({
      model: sequenceModel(say('Refunded.')),
      tools: guarded,
      messages: [{ role: 'user', content: 'Refund B1, I confirm.' }, ...first.response.messages, { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: request!.approvalId, approved: true }] }],
      stopWhen: stepCountIs(2),
    });
    expect(refunds).toEqual(['B1']);
  });

  it('does not ask about a call the workflow refuses, which is checked once: one refusal in the trace', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const { tools, ran } = supportTools();
    const ownApproval = vi.fn(async () => true);
    const guarded = guardTools({ ...tools, issue_refund: { ...tools.issue_refund, needsApproval: ownApproval } }, { monitor });
    const model = wrapLanguageModel({ model: sequenceModel(callTool('issue_refund', 'r1'), say('Let me verify you first.')), middleware: panoptesMiddleware({ monitor }) });
    const result = await generateText({ model, tools: guarded, prompt: 'Refund my order.', providerOptions: { panoptes: { sessionId: 's1' } }, stopWhen: stepCountIs(3) });

    expect(result.steps[0]!.content.filter((part) => part.type === 'tool-approval-request')).toEqual([]);
    expect(ownApproval).not.toHaveBeenCalled(); // the app's own question is not even asked
    expect(result.steps[0]!.content.find((part) => part.type === 'tool-error')).toMatchObject({ toolCallId: 'r1', error: refusalError(/^The call to issue_refund was refused and did not run\./) });
    expect(ran).toEqual([]);
    const report = (await monitor.report('s1'))!;
    expect(report.refusals).toEqual([expect.objectContaining({ state: 'account_action', by: 'workflow' })]);
    expect(report.trace).toEqual(['greeting']);
  });

  it('streaming too: the check waits for the response to be classified', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const { tools, ran } = supportTools();
    const guarded = guardTools({ ...tools, issue_refund: { ...tools.issue_refund, needsApproval: true } }, { monitor });
    const model = wrapLanguageModel({ model: sequenceModel(callTool('issue_refund', 'r1'), say('Let me verify you first.')), middleware: panoptesMiddleware({ monitor }) });
    const result = streamText({ model, tools: guarded, prompt: 'Refund my order.', providerOptions: { panoptes: { sessionId: 's1' } }, stopWhen: stepCountIs(3) });

    const steps = await result.steps;
    expect(steps[0]!.content.filter((part) => part.type === 'tool-approval-request')).toEqual([]);
    expect(steps[0]!.content.find((part) => part.type === 'tool-error')).toMatchObject({ toolCallId: 'r1', error: refusalError(/^The call to issue_refund was refused/) });
    expect(ran).toEqual([]);
    expect((await monitor.report('s1'))!.refusals).toHaveLength(1);
  });
});

describe('a refused call is a tool error', () => {
  it('for the model: the next request carries an error-text result with the reason', async () => {
    const { sentinel } = refundSetup({ B1: { status: 'cancelled_by_airline', delay_minutes: 0 } });
    const refunds: string[] = [];
    const issueRefund = tool({ inputSchema: bookingInput, execute: async ({ booking_id }) => (refunds.push(booking_id), `Refunded ${booking_id}.`) });
    const mock = sequenceModel(callTool('issue_refund', 'r1', { booking_id: 'B1' }), say('Which booking do you mean?'));
    const result = await generateText({ model: mock, tools: guardTools({ issue_refund: issueRefund }, { sentinel }), prompt: 'Refund B1.', stopWhen: stepCountIs(3) });

    const error = result.steps[0]!.content.find((part) => part.type === 'tool-error')!;
    expect(error).toBeDefined();
    expect(result.steps[0]!.toolResults).toEqual([]); // not a successful result
    const refused = (error as { error: unknown }).error;
    expect(ToolCallRefusedError.isInstance(refused) && refused.refusal).toMatchObject({ by: 'sentinel', tool: 'issue_refund', status: 'blocked', blockers: [{ kind: 'bind-context', name: 'booking_of_interest' }] });
    const reason = (refused as Error).message;
    expect(mock.doGenerateCalls[1]!.prompt.at(-1)).toEqual({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'r1', toolName: 'issue_refund', output: { type: 'error-text', value: reason } }],
    });
    expect(refunds).toEqual([]);
  });

  it('for useChat: the tool part is output-error, its errorText the reason (with onError passing refusals on), and it goes back to the model as such', async () => {
    const { sentinel } = refundSetup({ B1: { status: 'cancelled_by_airline', delay_minutes: 0 } });
    const issueRefund = tool({ inputSchema: bookingInput, execute: async ({ booking_id }) => `Refunded ${booking_id}.` });
    const tools = guardTools({ issue_refund: issueRefund }, { sentinel });
    const result = streamText({ model: sequenceModel(callTool('issue_refund', 'r1', { booking_id: 'B1' }), say('Which booking?')), tools, prompt: 'Refund B1.', stopWhen: stepCountIs(3) });

    // The SDK masks error texts by default; an app shows a refusal's text, which is written for the model and the user.
    const stream = result.toUIMessageStream({ onError: (error) => (ToolCallRefusedError.isInstance(error) ? error.message : 'An error occurred.') });
    let message: UIMessage | undefined;
    for await (const snapshot of readUIMessageStream({ stream })) message = snapshot;
    const part = message!.parts.find((candidate) => candidate.type === 'tool-issue_refund') as { state: string; errorText?: string };
    expect(part.state).toBe('output-error');
    expect(part.errorText).toMatch(/^issue_refund is not allowed yet\./);

    // The next turn of a useChat app: the UI messages back to model messages.
    const model = await convertToModelMessages([{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Refund B1.' }] }, message!], { tools });
    const toolResult = model.flatMap((entry) => (entry.role === 'tool' ? entry.content : [])).find((entry) => entry.type === 'tool-result');
    expect(toolResult).toMatchObject({ toolCallId: 'r1', output: { type: 'error-text', value: part.errorText } });
  });
});
