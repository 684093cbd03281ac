/**
 * Issue 25: `panoptesMiddleware` beside LangChain's `humanInTheLoopMiddleware`. Panoptes decides a refusal right after
 * the model answers, before the human is asked, in either order of the two in `middleware`: the human is never asked
 * about a call Panoptes refuses, the tool does not run, and the model reads the refusal as an error ToolMessage. A
 * call Panoptes allows still goes to the human.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { Command, MemorySaver } from '@langchain/langgraph';
import { createAgent, humanInTheLoopMiddleware, type AgentMiddleware } from 'langchain';
import { describe, expect, it } from 'vitest';
import { panoptesMiddleware } from '../../../adapters/langchain/index.js';
import { createGraphMonitor, sessionFromState } from '../../../adapters/langgraph/index.js';
import { refundSetup } from '../../guards/helpers.js';
import { callTool, describeMessage, recordingLogger, refundTools, requestsOf, supportMonitor, supportTools, supportWorkflow } from './helpers.js';

const ask = (text: string) => ({ messages: [new HumanMessage(text)] });
const thread = (id: string) => ({ configurable: { thread_id: id }, recursionLimit: 100 });
const approve = (count = 1) => new Command({ resume: { decisions: Array.from({ length: count }, () => ({ type: 'approve' })) } });

/** The tool calls a paused run asks the human about. */
function askedAbout(result: { __interrupt__?: Array<{ value: unknown }> }): string[] {
  return (result.__interrupt__ ?? []).flatMap(({ value }) => (value as { actionRequests: Array<{ name: string; args: unknown }> }).actionRequests.map((request) => `${request.name}(${JSON.stringify(request.args)})`));
}

/** A model answer calling several tools at once. */
function callTools(...calls: Array<[name: string, args: Record<string, unknown>, id: string]>): AIMessage {
  return new AIMessage({ content: '', tool_calls: calls.map(([name, args, id]) => ({ name, args, id, type: 'tool_call' as const })) });
}

const orders: Array<[string, (panoptes: AgentMiddleware, human: AgentMiddleware) => AgentMiddleware[]]> = [
  ['Panoptes listed first', (panoptes, human) => [panoptes, human]],
  ['Panoptes listed last', (panoptes, human) => [human, panoptes]],
];

describe.each(orders)('panoptesMiddleware with humanInTheLoopMiddleware (%s)', (_order, inOrder) => {
  it('never asks the human about a call the workflow refuses: the tool does not run and the model reads why; an allowed call is asked about', async () => {
    const { monitor } = supportMonitor();
    const { tools, refund, verify } = supportTools();
    const model = fakeModel()
      .respond(callTool('issue_refund', { order_id: 'A1' }, 'r0')) // before verification: refused
      .respond(callTool('verify_identity', { customer_id: '42' }, 'v1'))
      .respond(callTool('issue_refund', { order_id: 'A1' }, 'r1')) // allowed: the human is asked
      .respond(new AIMessage('Your refund is on its way.'));
    const human = humanInTheLoopMiddleware({ interruptOn: { issue_refund: true } });
    const agent = createAgent({ model, tools, checkpointer: new MemorySaver(), middleware: inOrder(panoptesMiddleware({ monitor }), human) });

    const paused = await agent.invoke(ask('Refund order A1, I am customer 42.'), thread('c1'));
    expect(model.callCount).toBe(3); // the first refund was never put to the human: the run went on to the second
    expect(askedAbout(paused)).toEqual(['issue_refund({"order_id":"A1"})']);
    expect(refund).not.toHaveBeenCalled();
    expect(verify).toHaveBeenCalledTimes(1);
    const afterRefusal = requestsOf(model)[1]!;
    expect(afterRefusal).toContain('ai: issue_refund({"order_id":"A1"})');
    expect(afterRefusal.find((line) => line.startsWith('tool:'))).toMatch(/^tool:The call to issue_refund was refused and did not run\..*\[error\]$/s);

    const resumed = await agent.invoke(approve(), thread('c1'));
    expect(refund).toHaveBeenCalledTimes(1);
    expect(resumed.messages.map(describeMessage)).toEqual([
      'human:Refund order A1, I am customer 42.',
      'ai: issue_refund({"order_id":"A1"})',
      expect.stringMatching(/^tool:The call to issue_refund was refused and did not run\..*\[error\]$/s),
      'ai: verify_identity({"customer_id":"42"})',
      'tool:Customer 42 verified.',
      'ai: issue_refund({"order_id":"A1"})',
      'tool:Refund issued for A1.',
      'ai:Your refund is on its way.',
    ]);
    const report = (await monitor.report('c1'))!;
    expect(report.refusals).toEqual([expect.objectContaining({ state: 'account_action', by: 'workflow' })]); // checked once
    expect(report.trace).toEqual(['greeting', 'verify_identity', 'account_action']);
  });

  it('never asks the human about a call the rules refuse; after the facts are in, the same call is asked about', async () => {
    const { sentinel } = refundSetup({ B1: { status: 'cancelled_by_airline', delay_minutes: 0 } });
    const { refund, issueRefund } = refundTools();
    const model = fakeModel()
      .respond(callTool('issue_refund', { booking_id: 'B1' }, 'r0')) // no booking of interest, no confirmation: refused
      .respond(callTool('set_context', { name: 'booking_of_interest', value: 'B1' }, 's1'))
      .respond(callTool('record_confirmation', { goal: 'customer_confirms("B1")', answer: 'yes' }, 'c1'))
      .respond(callTool('issue_refund', { booking_id: 'B1' }, 'r1'))
      .respond(new AIMessage('Refunded.'));
    const human = humanInTheLoopMiddleware({ interruptOn: { issue_refund: true } });
    const agent = createAgent({ model, tools: [issueRefund], checkpointer: new MemorySaver(), middleware: inOrder(panoptesMiddleware({ sentinel }), human) });

    const paused = await agent.invoke(ask('Refund booking B1, I confirm.'), thread('c1'));
    expect(askedAbout(paused)).toEqual(['issue_refund({"booking_id":"B1"})']);
    expect(model.callCount).toBe(4);
    expect(requestsOf(model)[1]!.find((line) => line.startsWith('tool:'))).toMatch(/^tool:issue_refund is not allowed yet\..*\[error\]$/s);
    expect(refund).not.toHaveBeenCalled();

    await agent.invoke(approve(), thread('c1'));
    expect(refund).toHaveBeenCalledTimes(1);
  });

  it('refuses one call of an answer and puts the other to the human: the thread keeps the whole answer, the refusal beside the result', async () => {
    const { sentinel } = refundSetup({ B1: { status: 'cancelled_by_airline', delay_minutes: 0 } });
    const { refund, issueRefund } = refundTools();
    const model = fakeModel()
      .respond(callTools(['set_context', { name: 'booking_of_interest', value: 'B1' }, 's1'], ['issue_refund', { booking_id: 'B1' }, 'r0']))
      .respond(new AIMessage('Do you confirm the refund of B1?'));
    const human = humanInTheLoopMiddleware({ interruptOn: { issue_refund: true, set_context: true } });
    const agent = createAgent({ model, tools: [issueRefund], checkpointer: new MemorySaver(), middleware: inOrder(panoptesMiddleware({ sentinel }), human) });

    const paused = await agent.invoke(ask('Refund booking B1.'), thread('c1'));
    expect(askedAbout(paused)).toEqual(['set_context({"name":"booking_of_interest","value":"B1"})']);
    const resumed = await agent.invoke(approve(), thread('c1'));

    expect(refund).not.toHaveBeenCalled();
    const lines = resumed.messages.map(describeMessage);
    expect(lines[1]).toBe('ai: set_context({"name":"booking_of_interest","value":"B1"}) issue_refund({"booking_id":"B1"})');
    expect(lines.slice(2, 4)).toEqual(expect.arrayContaining([expect.stringMatching(/^tool:issue_refund is not allowed yet\..*\[error\]$/s), 'tool:booking_of_interest = "B1".']));
    expect(lines.at(-1)).toBe('ai:Do you confirm the refund of B1?');
    expect(requestsOf(model)[1]!.slice(1)).toEqual(lines.slice(0, 4)); // the model read the same thread
    expect(toolMessageFor(resumed.messages, 'r0')?.status).toBe('error');
  });
});

describe('panoptesMiddleware with humanInTheLoopMiddleware, when the human rejects the call Panoptes allowed', () => {
  it('the model still reads the whole answer: the human’s rejection and Panoptes’ refusal', async () => {
    const { sentinel } = refundSetup({ B1: { status: 'cancelled_by_airline', delay_minutes: 0 } });
    const { refund, issueRefund } = refundTools();
    const model = fakeModel()
      .respond(callTools(['set_context', { name: 'booking_of_interest', value: 'B1' }, 's1'], ['issue_refund', { booking_id: 'B1' }, 'r0']))
      .respond(new AIMessage('Which booking, then?'));
    const human = humanInTheLoopMiddleware({ interruptOn: { issue_refund: true, set_context: true } });
    const agent = createAgent({ model, tools: [issueRefund], checkpointer: new MemorySaver(), middleware: [human, panoptesMiddleware({ sentinel })] });

    await agent.invoke(ask('Refund booking B1.'), thread('c1'));
    await agent.invoke(new Command({ resume: { decisions: [{ type: 'reject', message: 'Not that booking.' }] } }), thread('c1'));

    expect(refund).not.toHaveBeenCalled();
    // LangChain goes straight back to the model after a rejection: the thread cannot take the refusal in its place
    // any more, so the request carries it.
    expect(requestsOf(model)[1]!.slice(1)).toEqual([
      'human:Refund booking B1.',
      'ai: set_context({"name":"booking_of_interest","value":"B1"}) issue_refund({"booking_id":"B1"})',
      'tool:Not that booking. [error]',
      expect.stringMatching(/^tool:issue_refund is not allowed yet\..*\[error\]$/s),
    ]);
  });
});

describe('panoptesMiddleware with a graph monitor and humanInTheLoopMiddleware', () => {
  it('keeps the session in agent state and the answer whole, never asking about the refused call', async () => {
    const monitor = createGraphMonitor({ workflow: supportWorkflow, logger: recordingLogger() });
    const { tools, refund } = supportTools();
    const model = fakeModel()
      .respond(callTool('issue_refund', { order_id: 'A1' }, 'r0'))
      .respond(callTool('verify_identity', { customer_id: '42' }, 'v1'))
      .respond(new AIMessage('Verified. Shall I refund A1?'));
    const human = humanInTheLoopMiddleware({ interruptOn: { issue_refund: true } });
    const agent = createAgent({ model, tools, checkpointer: new MemorySaver(), middleware: [panoptesMiddleware({ monitor }), human] });
    const result = await agent.invoke(ask('Refund order A1, I am customer 42.'), thread('c1'));

    expect(result.__interrupt__).toBeUndefined();
    expect(refund).not.toHaveBeenCalled();
    expect(result.messages.map(describeMessage).slice(0, 3)).toEqual([
      'human:Refund order A1, I am customer 42.',
      'ai: issue_refund({"order_id":"A1"})',
      expect.stringMatching(/^tool:The call to issue_refund was refused and did not run\..*\[error\]$/s),
    ]);
    expect(result.messages.filter((message) => AIMessage.isInstance(message))).toHaveLength(3); // the refused answer is there once
    expect(sessionFromState(result)?.workflow.refusals).toEqual([expect.objectContaining({ state: 'account_action' })]);
  });
});

function toolMessageFor(messages: readonly BaseMessage[], toolCallId: string): ToolMessage | undefined {
  return messages.find((message): message is ToolMessage => ToolMessage.isInstance(message) && message.tool_call_id === toolCallId);
}
