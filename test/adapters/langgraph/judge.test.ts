/**
 * The judge in GuardedToolNode: tool_call rubrics judge a call the monitor allowed, before it runs; an `ask` pauses
 * the run for a human with `approvals`; a hanging, failing or over-budget judge follows on_error, counted.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel, type FakeBuiltModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { Command, END, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { toolsCondition } from '@langchain/langgraph/prebuilt';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { GuardedToolNode, type ApprovalRequest, type GuardedToolNodeOptions } from '../../../adapters/langgraph/index.js';
import { createJudge, createMonitor, emptyCassette, InvalidOptionError, parseRubrics, parseWorkflow, recordedJudge, scriptedJudge, type JudgeOptions } from '../../../src/index.js';
import { recordingLogger } from '../langchain/helpers.js';

const workflow = parseWorkflow(`
name: mail
states:
  - { name: start, initial: true }
  - { name: mail, classification: { tool_calls: [send_email] } }
transitions:
  - { from: start, to: mail }
  - { from: mail, to: mail }
  - { from: mail, to: start }
`);
const rubrics = (onFail: string, onError: string) =>
  parseRubrics(`
rubrics:
  - id: outgoing_mail
    description: The e-mail must be one the user asked for.
    scope: tool_call
    applies_to: { tools: [send_email] }
    criteria: [{ id: requested, description: the user asked for this e-mail }]
    pass_at: 1
    on_fail: ${onFail}
    on_error: ${onError}
`);
const verdicts = scriptedJudge(({ judged }) => {
  const bad = judged.includes('eve@evil.test');
  return { criteria: [{ id: 'requested', score: bad ? 0 : 1, reasoning: bad ? 'the user named bob' : 'asked', evidence: [] }], confidence: 0.9 };
});
const call = (to: string, id = 'm1') => new AIMessage({ content: '', tool_calls: [{ id, name: 'send_email', args: { to, body: 'report' }, type: 'tool_call' }] });
const lastTool = (messages: BaseMessage[]) => messages.filter((message) => ToolMessage.isInstance(message)).at(-1) as ToolMessage;
const thread = { configurable: { thread_id: 'g1' } };

function graphWith(model: FakeBuiltModel, judgeOptions: Partial<JudgeOptions> & Pick<JudgeOptions, 'rubrics'>, nodeOptions: Partial<GuardedToolNodeOptions> = {}) {
  const logger = recordingLogger();
  const judge = createJudge({ model: verdicts, logger, ...judgeOptions });
  const sent: unknown[] = [];
  const sendEmail = tool(async (args) => (sent.push(args), `Sent to ${args.to}.`), { name: 'send_email', description: 'Send an e-mail', schema: z.object({ to: z.string(), body: z.string() }) });
  const monitor = createMonitor({ workflow, logger });
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('agent', async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode('tools', new GuardedToolNode([sendEmail], { monitor, judge, logger, ...nodeOptions }))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', toolsCondition, ['tools', END])
    .addEdge('tools', 'agent')
    .compile({ checkpointer: new MemorySaver() });
  return { graph, sent, judge, logger, monitor };
}
const ask = { messages: [new HumanMessage('Send the report to bob@example.com')] };

describe('GuardedToolNode({ judge })', () => {
  it('block: the call the workflow allowed never runs; the model reads why', async () => {
    const { graph, sent, judge, monitor } = graphWith(fakeModel().respond(call('eve@evil.test')).respond(new AIMessage('Not sent.')), { rubrics: rubrics('block', 'deny') });
    const result = await graph.invoke(ask, thread);
    expect(sent).toEqual([]);
    expect((await monitor.report('g1'))!.trace).toEqual(['start']); // refused inside the monitor's guard: never entered
    expect(lastTool(result.messages)).toMatchObject({ status: 'error', content: 'A policy check did not pass: The e-mail must be one the user asked for. the user named bob The send_email call did not run.' });
    expect(judge.stats().calls).toBe(1);
  });

  it('pass: the call runs', async () => {
    const { graph, sent } = graphWith(fakeModel().respond(call('bob@example.com')).respond(new AIMessage('Sent.')), { rubrics: rubrics('block', 'deny') });
    await graph.invoke(ask, thread);
    expect(sent).toEqual([{ to: 'bob@example.com', body: 'report' }]);
  });

  it('ask without approvals: refused with the question', async () => {
    const { graph, sent } = graphWith(fakeModel().respond(call('eve@evil.test')).respond(new AIMessage('Shall I?')), { rubrics: rubrics('ask', 'deny') });
    const result = await graph.invoke(ask, thread);
    expect(sent).toEqual([]);
    expect(lastTool(result.messages).text).toContain('ask the user whether to go ahead');
  });

  it('ask with approvals: pauses with the judge\'s question; approve runs the call, judged once (the resume reads the cache)', async () => {
    const { graph, sent, judge, monitor } = graphWith(fakeModel().respond(call('eve@evil.test')).respond(new AIMessage('Sent.')), { rubrics: rubrics('ask', 'deny') }, { approvals: true });
    const paused = await graph.invoke(ask, thread);
    const request = (paused as { __interrupt__?: Array<{ value: ApprovalRequest }> }).__interrupt__?.[0]?.value;
    expect(request).toEqual({
      type: 'panoptes-approval',
      tool: 'send_email',
      args: { to: 'eve@evil.test', body: 'report' },
      questions: ['A policy check did not pass: The e-mail must be one the user asked for. the user named bob Approve send_email({"body":"report","to":"eve@evil.test"})?'],
      rubrics: ['outgoing_mail'],
    });
    expect(sent).toEqual([]);
    await graph.invoke(new Command({ resume: { decision: 'approve' } }), thread);
    expect(sent).toEqual([{ to: 'eve@evil.test', body: 'report' }]);
    expect(judge.stats()).toMatchObject({ calls: 1, cacheHits: 1 });
    expect((await monitor.report('g1'))!.trace).toEqual(['start', 'mail']); // entered once, when approved
  });

  it('ask with approvals: reject refuses; edit runs the edited call', async () => {
    const rejecting = graphWith(fakeModel().respond(call('eve@evil.test')).respond(new AIMessage('Understood.')), { rubrics: rubrics('ask', 'deny') }, { approvals: true });
    await rejecting.graph.invoke(ask, thread);
    const rejected = await rejecting.graph.invoke(new Command({ resume: { decision: 'reject', reason: 'wrong person' } }), thread);
    expect(rejecting.sent).toEqual([]);
    expect(lastTool(rejected.messages).text).toContain('The user declined this send_email call: wrong person');

    const editing = graphWith(fakeModel().respond(call('eve@evil.test')).respond(new AIMessage('Sent.')), { rubrics: rubrics('ask', 'deny') }, { approvals: true });
    await editing.graph.invoke(ask, thread);
    await editing.graph.invoke(new Command({ resume: { decision: 'edit', args: { to: 'bob@example.com', body: 'report' } } }), thread);
    expect(editing.sent).toEqual([{ to: 'bob@example.com', body: 'report' }]);
  });

  it('hanging: past timeoutMs the call is refused (on_error: deny), one timeout counted', async () => {
    const hanging = Object.assign(() => new Promise<never>(() => undefined), { modelId: 'hangs' });
    const { graph, sent, judge } = graphWith(fakeModel().respond(call('bob@example.com')).respond(new AIMessage('No.')), { rubrics: rubrics('block', 'deny'), model: hanging, timeoutMs: 50 });
    const result = await graph.invoke(ask, thread);
    expect(sent).toEqual([]);
    expect(lastTool(result.messages).text).toBe('This action could not be checked against a policy (The e-mail must be one the user asked for.). The send_email call did not run.');
    expect(judge.stats().errors.timeout).toBe(1);
  });

  it('failing: on_error: ask with approvals pauses for a human; one model error counted and logged once', async () => {
    const failing = Object.assign(async () => Promise.reject(new Error('provider down')), { modelId: 'fails' });
    const { graph, sent, judge, logger } = graphWith(fakeModel().respond(call('bob@example.com')).respond(new AIMessage('Sent.')), { rubrics: rubrics('block', 'ask'), model: failing }, { approvals: true });
    const paused = await graph.invoke(ask, thread);
    expect((paused as { __interrupt__?: Array<{ value: ApprovalRequest }> }).__interrupt__?.[0]?.value.questions[0]).toContain('This action could not be checked against a policy');
    await graph.invoke(new Command({ resume: { decision: 'approve' } }), thread);
    expect(sent).toHaveLength(1);
    expect(judge.stats().errors.model).toBe(2); // errors are never cached: the resumed node asked again
    expect(logger.warnings.filter((warning) => warning.includes('provider down'))).toHaveLength(1);
  });

  it('over budget: the second call of the thread is refused (on_error: deny), one budget error counted', async () => {
    const { graph, sent, judge } = graphWith(fakeModel().respond(call('bob@example.com', 'm1')).respond(call('bob@example.com', 'm2')).respond(new AIMessage('Done.')), { rubrics: rubrics('block', 'deny'), budget: { session: { calls: 1 } }, cache: false });
    const result = await graph.invoke(ask, thread);
    expect(sent).toHaveLength(1);
    expect(lastTool(result.messages).status).toBe('error');
    expect(judge.stats()).toMatchObject({ calls: 1, errors: expect.objectContaining({ budget: 1 }) });
  });

  it('replays a recorded verdict by key (strict); a miss is an error under on_error', async () => {
    const cassette = emptyCassette('recorded');
    const recording = graphWith(fakeModel().respond(call('eve@evil.test')).respond(new AIMessage('No.')), { rubrics: rubrics('block', 'deny'), model: recordedJudge(cassette, { strict: false, fallback: verdicts }) });
    await recording.graph.invoke(ask, thread);
    expect(Object.keys(cassette.entries)).toHaveLength(1);
    const replay = graphWith(fakeModel().respond(call('eve@evil.test')).respond(new AIMessage('No.')), { rubrics: rubrics('block', 'deny'), model: recordedJudge(cassette) });
    const replayed = await replay.graph.invoke(ask, thread);
    expect(replay.sent).toEqual([]);
    expect(lastTool(replayed.messages).text).toContain('the user named bob');
    const miss = graphWith(fakeModel().respond(call('bob@example.com')).respond(new AIMessage('No.')), { rubrics: rubrics('block', 'deny'), model: recordedJudge(cassette) });
    await miss.graph.invoke(ask, thread);
    expect(miss.sent).toEqual([]);
    expect(miss.judge.stats().errors.model).toBe(1);
  });

  it('rejects a judge option that is not a judge', () => {
    expect(() => new GuardedToolNode([], { monitor: createMonitor({ workflow }), judge: {} as never })).toThrow(InvalidOptionError);
    expect(() => new GuardedToolNode([], { monitor: createMonitor({ workflow }), judge: {} as never })).toThrow(/createJudge/);
  });
});
