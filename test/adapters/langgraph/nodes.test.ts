import { AIMessage, HumanMessage, type BaseMessage, type ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Annotation, END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { createGraphMonitor, GRAPH_HISTORY_LIMIT, GuardedToolNode, isGraphMonitor, PanoptesAnnotation, sessionFromState, wrapModelNode } from '../../../adapters/langgraph/index.js';
import { policyTools } from '../../../adapters/langchain/index.js';
import { createMonitor, InvalidOptionError, isPromiseLike, syncFirst } from '../../../src/index.js';
import { refundSetup } from '../../guards/helpers.js';
import { callTool, recordingLogger, supportTools, supportWorkflow } from '../langchain/helpers.js';

describe('createGraphMonitor', () => {
  it('is a monitor with a load step, whose sync-first calls answer at once', async () => {
    const monitor = createGraphMonitor({ workflow: supportWorkflow, logger: recordingLogger() });
    expect(isGraphMonitor(monitor)).toBe(true);
    const calls = syncFirst(monitor);
    expect(calls).not.toBe(monitor); // found by identity, not the promise-returning methods
    const after = calls.afterModel('g1', { content: 'tell me more', toolCalls: [] });
    expect(isPromiseLike(after)).toBe(false);
    expect((await monitor.session('g1'))!.workflow.state).toBe('identify_issue');
  });

  it('keeps the last 20 steps unless told otherwise: every checkpoint holds the session again', async () => {
    const kept = async (options: { historyLimit?: number }) => {
      const monitor = createGraphMonitor({ workflow: supportWorkflow, logger: recordingLogger(), ...options });
      for (let turn = 0; turn < GRAPH_HISTORY_LIMIT + 5; turn++) await monitor.afterModel('g1', { content: 'tell me more', toolCalls: [] });
      const session = (await monitor.session('g1'))!;
      return { steps: session.steps.length, stepCount: session.stepCount };
    };
    expect(GRAPH_HISTORY_LIMIT).toBe(20);
    expect(await kept({})).toEqual({ steps: 20, stepCount: 25 });
    expect(await kept({ historyLimit: 100 })).toEqual({ steps: 25, stepCount: 25 });
  });
});

describe('PanoptesAnnotation', () => {
  it('holds null until a node writes a session, so LangGraph never reads it as an empty channel', async () => {
    const State = Annotation.Root({ ...MessagesAnnotation.spec, ...PanoptesAnnotation.spec });
    const graph = new StateGraph(State).addNode('quiet', () => ({})).addEdge(START, 'quiet').addEdge('quiet', END).compile();
    expect((await graph.invoke({ messages: [] })).panoptes).toBeNull();
  });
});

describe('sessionFromState', () => {
  it('reads the session from the channel text, null before a node wrote one', async () => {
    const monitor = createGraphMonitor({ workflow: supportWorkflow, logger: recordingLogger() });
    const update = await wrapModelNode(async () => ({ messages: [new AIMessage('Hello! How can I help you today?')] }), { monitor })({ messages: [new HumanMessage('hi')] }, { configurable: { thread_id: 't1' } });
    expect(typeof update.panoptes).toBe('string');
    expect(sessionFromState(update)).toEqual(await monitor.session('t1'));
    expect(sessionFromState({ panoptes: null })).toBeNull();
    expect(sessionFromState({})).toBeNull();
  });

  it('keeps steps and deviations as tuples in the text, and reads them back as the records the monitor holds', async () => {
    const monitor = createGraphMonitor({ workflow: supportWorkflow, logger: recordingLogger() });
    // Straight from the greeting to the resolution: a move the workflow does not list, so a deviation.
    const update = await wrapModelNode(async () => ({ messages: [new AIMessage('Glad I could help. Is there anything else I can help with?')] }), { monitor })({ messages: [new HumanMessage('hi')] }, { configurable: { thread_id: 't1' } });

    const held = (await monitor.session('t1'))!;
    const [step] = held.steps;
    const [deviation] = held.workflow.deviations;
    expect(deviation).toMatchObject({ from: 'greeting', to: 'resolution', step: 1 });
    const text = JSON.parse(update.panoptes!) as { steps: unknown[]; workflow: { deviations: unknown[] } };
    expect(text.steps).toEqual([[1, 1, 'resolution', step!.method, step!.confidence, step!.elapsedMs]]);
    expect(text.workflow.deviations).toEqual([['greeting', 'resolution', deviation!.position, deviation!.at, 1]]);
    expect(sessionFromState(update)).toEqual(held);
  });

  it('reads steps and deviations written as objects, and a deviation without a step', () => {
    const session = { workflow: { state: 'resolution', deviations: [{ from: 'greeting', to: 'resolution', position: 1, at: 5 }] }, steps: [{ index: 1, turn: 1, state: 'resolution', method: 'pattern', confidence: 0.9 }] };
    expect(sessionFromState({ panoptes: JSON.stringify(session) })).toEqual(session);
    const compact = { workflow: { state: 'resolution', deviations: [['greeting', 'resolution', 1, 5, null]] }, steps: [[1, 1, 'resolution', 'pattern', 0.9]] };
    expect(sessionFromState({ panoptes: JSON.stringify(compact) })).toEqual(session);
  });

  it('says what is wrong with a channel something else wrote', () => {
    const notASession = (text: string) => new TypeError(`Graph state's panoptes channel holds ${JSON.stringify(text.slice(0, 40))}, not a monitor session. Only Panoptes' nodes should write it; reset it to null to start the session afresh.`);
    expect(() => sessionFromState({ panoptes: '[1, 2]' })).toThrow(notASession('[1, 2]'));
    expect(() => sessionFromState({ panoptes: '{"steps":[]}' })).toThrow(notASession('{"steps":[]}'));
    expect(() => sessionFromState({ panoptes: 'not json' })).toThrow(SyntaxError);
  });
});

describe('GuardedToolNode on its own', () => {
  it('refuses a call from a plain message list (MessageGraph style), with the monitor keeping the session itself', async () => {
    const monitor = createMonitor({ workflow: supportWorkflow, logger: recordingLogger() });
    const { issueRefund, refund } = supportTools();
    const announced = callTool('issue_refund', { order_id: 'A1' }, 'r1');
    await monitor.afterModel('t1', { content: '', toolCalls: [{ id: 'r1', name: 'issue_refund', args: { order_id: 'A1' } }] });
    const output = (await new GuardedToolNode([issueRefund], { monitor }).invoke([new HumanMessage('Refund A1'), announced], { configurable: { thread_id: 't1' } })) as ToolMessage[];

    expect(output).toHaveLength(1);
    expect(output[0]).toMatchObject({ status: 'error', tool_call_id: 'r1' });
    expect(refund).not.toHaveBeenCalled();
    expect((await monitor.report('t1'))!.refusals).toHaveLength(1);
  });

  it("never puts the sentinel's own tools to its rules: they are how the model answers a refusal", async () => {
    const { sentinel } = refundSetup({});
    const answer = callTool('set_context', { name: 'booking_of_interest', value: 'B1' }, 's1');
    const output = (await new GuardedToolNode(policyTools(sentinel), { sentinel }).invoke([new HumanMessage('Refund B1'), answer])) as ToolMessage[];
    expect(output).toEqual([expect.objectContaining({ status: 'success', content: 'booking_of_interest = "B1".' })]);
    expect(sentinel.facts.context('booking_of_interest')?.value).toBe('B1');
  });

  it('writes the session into graph state only when the step changed it', async () => {
    const monitor = createGraphMonitor({ workflow: supportWorkflow, logger: recordingLogger() });
    const modelNode = wrapModelNode(async () => ({ messages: [callTool('lookup_weather', { city: 'Oslo' }, 'w1')] }), { monitor });
    const human = new HumanMessage('Weather in Oslo?');
    const config = { configurable: { thread_id: 'w' } };
    const afterModel = await modelNode({ messages: [human] }, config);
    expect(sessionFromState(afterModel)?.turns).toBe(1); // a turn was classified: the session changed
    const weather = tool(async ({ city }: { city: string }) => `Sunny in ${city}.`, { name: 'lookup_weather', description: 'Weather', schema: z.object({ city: z.string() }) });
    const update = (await new GuardedToolNode([weather], { monitor }).invoke({ messages: [human, ...(afterModel.messages as BaseMessage[])], panoptes: afterModel.panoptes }, config)) as { messages: ToolMessage[]; panoptes?: unknown };
    expect(update.messages.map((message) => message.content)).toEqual(['Sunny in Oslo.']);
    expect(update).not.toHaveProperty('panoptes'); // a tool no state names: the session is as it was
  });

  it('needs a monitor or a sentinel', () => {
    expect(() => new GuardedToolNode([], {})).toThrow(InvalidOptionError);
  });
});

describe('wrapModelNode on its own', () => {
  it('checks its options at construction', () => {
    const node = async () => ({ messages: [new AIMessage('hi')] });
    expect(() => wrapModelNode(node, {} as never)).toThrow(InvalidOptionError);
    expect(() => wrapModelNode(node, { monitor: createGraphMonitor({ workflow: supportWorkflow }), onBlock: 'stop' as never })).toThrow(/`onBlock`/);
  });

  it('continues the session it wrote without parsing it again, also from a copy of its text (a checkpoint read back)', async () => {
    const monitor = createGraphMonitor({ workflow: supportWorkflow, logger: recordingLogger() });
    const node = wrapModelNode(async () => ({ messages: [new AIMessage('Tell me more about the order.')] }), { monitor });
    const config = { configurable: { thread_id: 't1' } };
    const first = await node({ messages: [new HumanMessage('hi')] }, config);
    const copy = JSON.parse(JSON.stringify(first.panoptes)) as string; // equal text, another string
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const second = await node({ messages: [new HumanMessage('hi')], panoptes: copy }, config);
      expect(parse).not.toHaveBeenCalled();
      expect(sessionFromState(second)?.turns).toBe(2);
    } finally {
      parse.mockRestore();
    }
  });

  it('starts the session afresh when the channel holds something that is not a session, and logs it once', async () => {
    const warnings: unknown[][] = [];
    const monitor = createGraphMonitor({ workflow: supportWorkflow, logger: { warn: (...args: unknown[]) => void warnings.push(args) } });
    const node = wrapModelNode(async () => ({ messages: [new AIMessage('Hello! How can I help you today?')] }), { monitor, logger: { warn: (...args: unknown[]) => void warnings.push(args) } });
    const config = { configurable: { thread_id: 't1' } };
    await node({ messages: [new HumanMessage('hi')] }, config); // a session the corrupt text must not continue
    const update = await node({ messages: [new HumanMessage('hi')], panoptes: '{"workflow":' }, config);

    expect(update.messages).toEqual([new AIMessage('Hello! How can I help you today?')]);
    expect(sessionFromState(update)?.turns).toBe(1);
    expect(warnings).toEqual([['[panoptes] loading the session from graph state failed; the agent goes on unchecked. Later failures here are not logged.', expect.any(SyntaxError)]]);
  });

  it('passes on an update of new messages as it is', async () => {
    const monitor = createGraphMonitor({ workflow: supportWorkflow, logger: recordingLogger() });
    const answer = { messages: [new AIMessage('Hello! How can I help you today?')] };
    const node = wrapModelNode(async () => answer, { monitor, systemPrompt: 'You are a support agent.' });
    const update = await node({ messages: [new HumanMessage('hi')] }, { configurable: { thread_id: 't1' } });
    expect(update.messages).toBe(answer.messages);
  });

  it('takes the messages it added for one call out of a node update that returns the whole list', async () => {
    const monitor = createGraphMonitor({ workflow: supportWorkflow, logger: recordingLogger() });
    const node = wrapModelNode(async (state: { messages: BaseMessage[] }) => ({ messages: [...state.messages, new AIMessage('Hello! How can I help you today?')] }), { monitor, systemPrompt: 'You are a support agent.' });
    const human = new HumanMessage('hi');
    const update = await node({ messages: [human] }, { configurable: { thread_id: 't1' } });
    expect((update.messages as unknown[]).map((message) => (message as { content: unknown }).content)).toEqual(['hi', 'Hello! How can I help you today?']);
    expect(sessionFromState(update)?.turns).toBe(1);
    expect(isGraphMonitor(monitor)).toBe(true);
  });
});
