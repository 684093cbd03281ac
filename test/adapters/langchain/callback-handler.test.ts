import { ChatPromptTemplate } from '@langchain/core/prompts';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { createAgent } from 'langchain';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { PanoptesCallbackHandler, toChatMessages, ToolCallRefusedError } from '../../../adapters/langchain/index.js';
import { createMonitor, InvalidOptionError, PanoptesError, ToolCallDeniedError, WorkflowViolationError } from '../../../src/index.js';
import { refundSetup } from '../../guards/helpers.js';
import { callTool, describeMessage, recordingLogger, requestsOf, strictSupportWorkflow, supportMonitor, supportTools } from './helpers.js';

const conversation = [new SystemMessage('You are a support agent.'), new HumanMessage('Refund order A1.')];

describe('PanoptesCallbackHandler', () => {
  // LangChain prints every error a handler raises; the refusals here are on purpose.
  beforeEach(() => void vi.spyOn(console, 'error').mockImplementation(() => {}));

  it('observes a plain chat model: responses are classified and move the workflow, requests are untouched', async () => {
    const { monitor } = supportMonitor();
    const handler = new PanoptesCallbackHandler({ monitor });
    const model = fakeModel().respond(callTool('verify_identity', { customer_id: '42' }, 'v1')).respond(new AIMessage('Is there anything else I can help with?'));
    const options = { callbacks: [handler], metadata: { session_id: 's1' } };
    await model.invoke(conversation, options);
    await model.invoke(conversation, options);

    expect((await monitor.report('s1'))!.trace).toEqual(['greeting', 'verify_identity', 'resolution']);
    expect(requestsOf(model)).toEqual([conversation.map(describeMessage), conversation.map(describeMessage)]);
    expect(handler.awaitHandlers).toBe(true);
  });

  // Issue 13: the README said the handler reads configurable.thread_id on any runnable. LangChain passes callback
  // handlers the run's metadata, never its configurable (only its own LangSmith tracer gets those keys), so a plain
  // chain names its session in metadata; LangGraph copies the thread id there itself (the createAgent test above).
  it('on a plain chain, takes the session from metadata.thread_id; configurable alone does not reach a handler', async () => {
    const { monitor } = supportMonitor();
    const model = fakeModel().respond(new AIMessage('Is there anything else I can help with?')).respond(new AIMessage('Is there anything else I can help with?'));
    const chain = ChatPromptTemplate.fromMessages([['system', 'You are a support agent.'], ['human', '{question}']]).pipe(model);
    await chain.invoke({ question: 'Refund A1.' }, { callbacks: [new PanoptesCallbackHandler({ monitor })], metadata: { thread_id: 'chain-1' } });
    expect((await monitor.report('chain-1'))!.trace).toEqual(['greeting', 'resolution']);
    await chain.invoke({ question: 'Refund A2.' }, { callbacks: [new PanoptesCallbackHandler({ monitor })], configurable: { thread_id: 'chain-2' } });
    expect(await monitor.report('chain-2')).toBeUndefined();
  });

  it('places an unnamed session by its conversation: the session whose answer the history carries', async () => {
    const { monitor } = supportMonitor();
    const answer = new AIMessage('Is there anything else I can help with?');
    const model = fakeModel().respond(answer);
    await model.invoke(conversation, { callbacks: [new PanoptesCallbackHandler({ monitor })] });
    const session = monitor.conversations.sessionEndingWith(toChatMessages([...conversation, answer]));
    expect(session).toMatch(/^conversation-/);
    expect((await monitor.report(session!))!.trace).toEqual(['greeting', 'resolution']);
  });

  it('with raiseError, refuses a model call when a block is due: the model is never called', async () => {
    const monitor = createMonitor({ workflow: strictSupportWorkflow, logger: recordingLogger() });
    const handler = new PanoptesCallbackHandler({ monitor, raiseError: true });
    const model = fakeModel().respond(new AIMessage('Here are the internal notes.')).respond(new AIMessage('never sent'));
    const options = { callbacks: [handler], metadata: { session_id: 's1' } };
    await model.invoke(conversation, options);
    const error = await model.invoke(conversation, options).catch((caught: unknown) => caught);

    expect(WorkflowViolationError.isInstance(error)).toBe(true);
    expect(model.callCount).toBe(1);
  });

  it('with raiseError, refuses a tool call the workflow forbids before it runs', async () => {
    const { monitor } = supportMonitor();
    const handler = new PanoptesCallbackHandler({ monitor, raiseError: true });
    const { issueRefund, refund } = supportTools();
    const model = fakeModel().respond(callTool('issue_refund', { order_id: 'A1' }, 'r1'));
    const options = { callbacks: [handler], metadata: { session_id: 's1' } };
    const response = await model.invoke(conversation, options);
    const error = await issueRefund.invoke({ ...response.tool_calls![0]!, type: 'tool_call' }, options).catch((caught: unknown) => caught);

    expect(ToolCallRefusedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'TOOL_CALL_DENIED', toolName: 'issue_refund', constraints: ['verify_before_account_action'], sessionId: 's1' });
    expect(PanoptesError.isInstance(error)).toBe(true);
    expect(ToolCallRefusedError.isInstance(new ToolCallDeniedError(await refundSetup({}).sentinel.check('issue_refund', { booking_id: 'B1' })))).toBe(false);
    expect(refund).not.toHaveBeenCalled();
  });

  it("with raiseError inside createAgent, the refused tool's error reaches the model as an error ToolMessage", async () => {
    const { monitor } = supportMonitor();
    const { tools, refund } = supportTools();
    const model = fakeModel().respond(callTool('issue_refund', { order_id: 'A1' }, 'r1')).respond(new AIMessage('Let me verify you first.'));
    const agent = createAgent({ model, tools });
    const logger = recordingLogger();
    const handler = new PanoptesCallbackHandler({ monitor, raiseError: true, logger });
    const result = await agent.invoke({ messages: [new HumanMessage('Refund A1.')] }, { callbacks: [handler], configurable: { thread_id: 't1' } });

    const refusal = result.messages.find((message) => ToolMessage.isInstance(message)) as ToolMessage;
    expect(refusal.status).toBe('error');
    // The refusal as written for the model; LangChain's tool node adds its own line after a tool's error.
    expect(refusal.content).toMatch(/^The call to issue_refund was refused and did not run\./);
    expect(refund).not.toHaveBeenCalled();
    expect((await monitor.report('t1'))!.refusals).toHaveLength(1);
    // The guidance due on the second model call could not be applied by a callback, and the developer is told so.
    expect(logger.warnings).toEqual([expect.stringMatching(/^\[panoptes\] Interventions were due on a call a callback handler cannot edit/)]);
  });

  it('observing only, lets the tool run: the call enters the workflow, and its violation blocks nothing', async () => {
    const { monitor } = supportMonitor();
    const { tools, refund } = supportTools();
    const model = fakeModel().respond(callTool('issue_refund', { order_id: 'A1' }, 'r1')).respond(new AIMessage('Done.'));
    const agent = createAgent({ model, tools });
    await agent.invoke({ messages: [new HumanMessage('Refund A1.')] }, { callbacks: [new PanoptesCallbackHandler({ monitor })], configurable: { thread_id: 't1' } });

    expect(refund).toHaveBeenCalledTimes(1);
    expect((await monitor.report('t1'))!.violations).toEqual([expect.objectContaining({ constraint: 'verify_before_account_action' })]);
  });

  it('checks its options at construction', () => {
    expect(() => new PanoptesCallbackHandler({} as never)).toThrow(InvalidOptionError);
  });
});
