import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { fakeModel, type FakeBuiltModel } from '@langchain/core/testing';
import { Annotation, END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { toolsCondition } from '@langchain/langgraph/prebuilt';
import { describe, expect, it, vi } from 'vitest';
import { policyTools } from '../../../adapters/langchain/index.js';
import { createGraphMonitor, GuardedToolNode, PanoptesAnnotation, wrapModelNode, type WrapModelNodeOptions } from '../../../adapters/langgraph/index.js';
import { InvalidOptionError, type SentinelSource } from '../../../src/index.js';
import { refundSetup } from '../../guards/helpers.js';
import { callTool, recordingLogger, refundSentinels, refundWorkflow, requestsOf } from '../langchain/helpers.js';

const SYSTEM = 'You are a support agent.';
const EMPTY = `system:${SYSTEM}\n\n[KNOWN FACTS]\nContext: (none bound)\nFacts: (none)`;
const State = Annotation.Root({ ...MessagesAnnotation.spec, ...PanoptesAnnotation.spec });

/** A hand-built graph whose model names the booking (a policy tool call that binds a context), then answers. */
async function run(sentinel: SentinelSource, options: Partial<WrapModelNodeOptions> = {}, threadId = 't1') {
  const model: FakeBuiltModel = fakeModel().respond(callTool('set_context', { name: 'booking_of_interest', value: 'B1' }, 's1')).respond(new AIMessage('Booking B1 it is.'));
  const logger = recordingLogger();
  const monitor = createGraphMonitor({ workflow: refundWorkflow, logger });
  const graph = new StateGraph(State)
    .addNode('agent', wrapModelNode(async (state: typeof State.State) => ({ messages: [await model.invoke(state.messages)] }), { monitor, systemPrompt: SYSTEM, sentinel, logger, ...options }))
    .addNode('tools', new GuardedToolNode(policyTools(sentinel), { sentinel }))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', toolsCondition, ['tools', END])
    .addEdge('tools', 'agent')
    .compile();
  const result = await graph.invoke({ messages: [new HumanMessage('About my booking B1.')] }, { configurable: { thread_id: threadId } });
  return { systems: requestsOf(model).map((request) => request[0]), result, logger };
}

describe('wrapModelNode with a sentinel: the fact summary', () => {
  it('reaches the model at the end of the system prompt, and the next call reads the facts a tool result changed', async () => {
    const { sentinel } = refundSetup({});
    const { systems, result } = await run(sentinel);
    expect(systems).toEqual([EMPTY, `system:${SYSTEM}\n\n[KNOWN FACTS]\nContext: booking_of_interest = "B1"\nFacts: (none)`]);
    // The summary was for those calls only: the thread stores no system message.
    expect(result.messages.map((message) => message.getType())).toEqual(['human', 'ai', 'tool', 'ai']);
  });

  it('with a sentinel and no monitor, only the facts are added', async () => {
    const { systems, result } = await run(refundSetup({}).sentinel, { monitor: undefined });
    expect(systems).toEqual([EMPTY, `system:${SYSTEM}\n\n[KNOWN FACTS]\nContext: booking_of_interest = "B1"\nFacts: (none)`]);
    expect(result.messages.at(-1)?.content).toBe('Booking B1 it is.');
  });

  it('with per-conversation sentinels, each thread reads its own facts', async () => {
    const sentinels = refundSentinels();
    const first = await run(sentinels, { monitor: undefined }, 'a');
    const second = await run(sentinels, { monitor: undefined }, 'b');
    expect(first.systems[1]).toContain('Context: booking_of_interest = "B1"');
    expect(second.systems[0]).toBe(EMPTY);
  });

  it('stays out with factSummary: false', async () => {
    const { sentinel } = refundSetup({});
    const { systems } = await run(sentinel, { factSummary: false });
    expect(systems).toEqual([`system:${SYSTEM}`, `system:${SYSTEM}`]);
  });

  it('is a system message of its own when no system prompt is given', async () => {
    const { sentinel } = refundSetup({});
    const { systems } = await run(sentinel, { systemPrompt: undefined });
    expect(systems[0]).toBe('system:[KNOWN FACTS]\nContext: (none bound)\nFacts: (none)');
  });

  it('a summarize() that throws is logged once and each call goes on without it', async () => {
    const { sentinel } = refundSetup({});
    vi.spyOn(sentinel.facts, 'summarize').mockImplementation(() => {
      throw new Error('summary store down');
    });
    const { systems, result, logger } = await run(sentinel);
    expect(systems).toEqual([`system:${SYSTEM}`, `system:${SYSTEM}`]);
    expect(result.messages.at(-1)?.content).toBe('Booking B1 it is.');
    expect(logger.warnings.filter((warning) => warning.includes('sentinel.facts.summarize'))).toHaveLength(1);
  });

  it('refuses neither a monitor nor a sentinel at construction', () => {
    expect(() => wrapModelNode(async () => ({}), {})).toThrow(/Pass a monitor from createGraphMonitor\(\) or createMonitor\(\), a sentinel, a judge from createJudge\(\), or several/);
  });

  it('refuses factSummary without a sentinel, or that is not a boolean, at construction', () => {
    const monitor = createGraphMonitor({ workflow: refundWorkflow });
    expect(() => wrapModelNode(async () => ({}), { monitor, factSummary: true })).toThrow(InvalidOptionError);
    expect(() => wrapModelNode(async () => ({}), { monitor, factSummary: true })).toThrow(/pass `sentinel` too/);
    const { sentinel } = refundSetup({});
    expect(() => wrapModelNode(async () => ({}), { monitor, sentinel, factSummary: 'yes' as never })).toThrow(/Pass true or false/);
  });
});
