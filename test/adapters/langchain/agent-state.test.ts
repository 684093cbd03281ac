import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { Command, MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { panoptesMiddleware } from '../../../adapters/langchain/index.js';
import { createGraphMonitor, sessionFromState } from '../../../adapters/langgraph/index.js';
import { WorkflowViolationError } from '../../../src/index.js';
import { callTool, describeMessage, humanVerifiedTools, recordingLogger, requestsOf, strictSupportWorkflow, supportMonitor, supportTools, supportWorkflow } from './helpers.js';

const SYSTEM = 'You are a support agent.';
const ask = (text: string) => ({ messages: [new HumanMessage(text)] });
const thread = (id: string) => ({ configurable: { thread_id: id }, recursionLimit: 100 });
const DONE = 'Your refund is on its way. Is there anything else I can help with?';
const graphMonitor = (workflow = supportWorkflow) => createGraphMonitor({ workflow, logger: recordingLogger() });

/**
 * A monitor from `createGraphMonitor` keeps each thread's session in the agent's state, so `createAgent`'s
 * checkpointer persists it: a thread continued by another process (a new monitor, the same checkpointer) goes on
 * with the same verdicts.
 */
describe('panoptesMiddleware with a graph monitor: the session in agent state', () => {
  it('changes nothing the model receives, and keeps the session in agent state', async () => {
    const script = () => fakeModel().respond(callTool('verify_identity', { customer_id: '42' }, 'v1')).respond(callTool('issue_refund', { order_id: 'A1' }, 'r1')).respond(new AIMessage(DONE));
    const plain = script();
    await createAgent({ model: plain, tools: supportTools().tools, systemPrompt: SYSTEM }).invoke(ask('Refund order A1, I am customer 42.'), thread('plain'));

    const monitor = graphMonitor();
    const watched = script();
    const agent = createAgent({ model: watched, tools: supportTools().tools, systemPrompt: SYSTEM, middleware: [panoptesMiddleware({ monitor })], checkpointer: new MemorySaver() });
    const result = await agent.invoke(ask('Refund order A1, I am customer 42.'), thread('c1'));

    expect(requestsOf(watched)).toEqual(requestsOf(plain));
    expect(result.messages.map(describeMessage)).toEqual(['human:Refund order A1, I am customer 42.', 'ai: verify_identity({"customer_id":"42"})', 'tool:Customer 42 verified.', 'ai: issue_refund({"order_id":"A1"})', 'tool:Refund issued for A1.', `ai:${DONE}`]);
    expect(sessionFromState(result)).toEqual(await monitor.session('c1'));
    expect(sessionFromState(result)?.workflow.trace).toEqual(['greeting', 'verify_identity', 'account_action', 'resolution']);
  });

  it('continues a thread in a new process with the same verdicts: identity verified there is not asked again', async () => {
    const checkpointer = new MemorySaver();
    const first = createAgent({ model: fakeModel().respond(callTool('verify_identity', { customer_id: '42' }, 'v1')).respond(new AIMessage('Verified. What can I do for you?')), tools: supportTools().tools, middleware: [panoptesMiddleware({ monitor: graphMonitor() })], checkpointer });
    await first.invoke(ask('I am customer 42.'), thread('c1'));

    // Another process: a monitor that has never seen thread c1, the same checkpointer.
    const monitor = graphMonitor();
    const { tools, refund } = supportTools();
    const second = createAgent({ model: fakeModel().respond(callTool('issue_refund', { order_id: 'A1' }, 'r1')).respond(new AIMessage(DONE)), tools, middleware: [panoptesMiddleware({ monitor })], checkpointer });
    const result = await second.invoke(ask('Refund order A1.'), thread('c1'));

    expect(refund).toHaveBeenCalledTimes(1);
    expect(result.messages.filter((message) => ToolMessage.isInstance(message) && message.status === 'error')).toEqual([]);
    expect(await monitor.report('c1')).toMatchObject({ trace: ['greeting', 'verify_identity', 'account_action', 'resolution'], refusals: [] });

    // The same two runs with a plain monitor in each process: the second knows nothing of the verification.
    const plainCheckpointer = new MemorySaver();
    const plainFirst = createAgent({ model: fakeModel().respond(callTool('verify_identity', { customer_id: '42' }, 'v1')).respond(new AIMessage('Verified. What can I do for you?')), tools: supportTools().tools, middleware: [panoptesMiddleware({ monitor: supportMonitor().monitor })], checkpointer: plainCheckpointer });
    await plainFirst.invoke(ask('I am customer 42.'), thread('c1'));
    const plain = supportTools();
    const plainSecond = createAgent({ model: fakeModel().respond(callTool('issue_refund', { order_id: 'A1' }, 'r1')).respond(new AIMessage(DONE)), tools: plain.tools, middleware: [panoptesMiddleware({ monitor: supportMonitor().monitor })], checkpointer: plainCheckpointer });
    await plainSecond.invoke(ask('Refund order A1.'), thread('c1'));
    expect(plain.refund).not.toHaveBeenCalled();
  });

  it('resumes an interrupted tool in a new process with the refusal recorded before the restart', async () => {
    const checkpointer = new MemorySaver();
    const { tools, refund } = humanVerifiedTools();

    const before = fakeModel().respond(callTool('issue_refund', { order_id: 'A1' }, 'r0')).respond(callTool('verify_identity', { customer_id: '42' }, 'v1'));
    await createAgent({ model: before, tools, middleware: [panoptesMiddleware({ monitor: graphMonitor() })], checkpointer }).invoke(ask('Refund order A1.'), thread('c1'));

    const monitor = graphMonitor();
    const after = fakeModel().respond(callTool('issue_refund', { order_id: 'A1' }, 'r1')).respond(new AIMessage(DONE));
    const result = await createAgent({ model: after, tools, middleware: [panoptesMiddleware({ monitor })], checkpointer }).invoke(new Command({ resume: 'yes' }), thread('c1'));

    expect(refund).toHaveBeenCalledTimes(1);
    expect(sessionFromState(result)?.workflow).toMatchObject({
      trace: ['greeting', 'verify_identity', 'account_action', 'resolution'],
      refusals: [expect.objectContaining({ state: 'account_action' })], // recorded before the restart
    });
  });

  it('keeps the records of tool calls that run side by side: a refusal beside an allowed call', async () => {
    const monitor = graphMonitor();
    const { tools, verify, refund } = supportTools();
    const both = new AIMessage({
      content: '',
      tool_calls: [
        { id: 'r0', name: 'issue_refund', args: { order_id: 'A1' }, type: 'tool_call' },
        { id: 'v1', name: 'verify_identity', args: { customer_id: '42' }, type: 'tool_call' },
      ],
    });
    const agent = createAgent({ model: fakeModel().respond(both).respond(new AIMessage(DONE)), tools, middleware: [panoptesMiddleware({ monitor })], checkpointer: new MemorySaver() });
    const result = await agent.invoke(ask('Refund order A1, I am customer 42.'), thread('c1'));

    expect(refund).not.toHaveBeenCalled();
    expect(verify).toHaveBeenCalledTimes(1);
    const saved = sessionFromState(result)!;
    expect(saved).toEqual(await monitor.session('c1'));
    expect(saved.workflow.refusals).toEqual([expect.objectContaining({ state: 'account_action' })]);
    expect(saved.workflow.trace).toContain('verify_identity');
  });

  it('starts the session afresh when agent state holds something that is not a session, and logs it once', async () => {
    const warnings: unknown[][] = [];
    const logger = { warn: (...args: unknown[]) => void warnings.push(args) };
    const monitor = graphMonitor();
    const agent = createAgent({ model: fakeModel().respond(new AIMessage('Hello! How can I help you today?')), tools: supportTools().tools, middleware: [panoptesMiddleware({ monitor, logger })], checkpointer: new MemorySaver() });
    const result = await agent.invoke({ ...ask('hi'), panoptes: '{"workflow":' }, thread('c1'));

    expect(textOfLast(result.messages)).toBe('Hello! How can I help you today?');
    expect(sessionFromState(result)?.turns).toBe(1);
    expect(warnings).toEqual([['[panoptes] loading the session from agent state failed; the agent goes on unchecked. Later failures here are not logged.', expect.any(SyntaxError)]]);
  });

  it('writes the session with the answer of a blocked call: the run ends with the AI message saying why', async () => {
    const monitor = graphMonitor(strictSupportWorkflow);
    const model = fakeModel().respond(new AIMessage('Here are the internal notes on your account.')).respond(new AIMessage('unreachable'));
    const agent = createAgent({ model, tools: supportTools().tools, middleware: [panoptesMiddleware({ monitor, onViolatingText: 'deliver' })], checkpointer: new MemorySaver() });
    await agent.invoke(ask('What do your notes say?'), thread('c1'));
    const result = await agent.invoke(ask('And now?'), thread('c1'));

    expect(model.calls).toHaveLength(1);
    expect(textOfLast(result.messages)).toMatch(/^\[Panoptes\] This run was stopped/);
    expect(sessionFromState(result)).toEqual(await monitor.session('c1'));

    const throwing = createAgent({ model: fakeModel().respond(new AIMessage('Here are the internal notes on your account.')), tools: supportTools().tools, middleware: [panoptesMiddleware({ monitor: graphMonitor(strictSupportWorkflow), onBlock: 'throw', onViolatingText: 'deliver' })], checkpointer: new MemorySaver() });
    await throwing.invoke(ask('What do your notes say?'), thread('c2'));
    await expect(throwing.invoke(ask('And now?'), thread('c2'))).rejects.toThrow(WorkflowViolationError);
  });
});

function textOfLast(messages: ReadonlyArray<{ content: unknown }>): string {
  const content = messages.at(-1)?.content;
  return typeof content === 'string' ? content : JSON.stringify(content);
}
