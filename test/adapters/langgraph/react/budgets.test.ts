import { HumanMessage } from '@langchain/core/messages';
import { Annotation, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createReactGraph, createVerificationGraph, reactRecursionLimit } from '../../../../adapters/langgraph/index.js';
import { answerSchema, calls, noWait, readingModel, searchTool } from './helpers.js';
import { FILED_IN_TIME, promptClaim, refundPolicy } from './refund-reviewer.js';

/** A model that searches until its `finishAt`-th call, then finishes (never, when that is past the budget). */
function searchingUntil(finishAt: number) {
  let calls_ = 0;
  return readingModel(() => (++calls_ >= finishAt ? calls(['finish', { answer: 'done', confidence: 0.9 }]) : calls(['search', { query: `q${calls_}` }])), 260);
}

const ask = { messages: [new HumanMessage('Is an MRI covered?')] };

/** Every run ends with a status: finished when the model finished within the budget, else budget_iterations. */
function expectEnded(react: { status: string; reasonCode?: string; iterations: number }, maxIterations: number, finishAt: number) {
  if (finishAt <= maxIterations) expect(react).toMatchObject({ status: 'finished', iterations: finishAt });
  else expect(react).toMatchObject({ status: 'uncertain', reasonCode: 'budget_iterations', iterations: maxIterations });
}

describe('budgets never throw', () => {
  it('createReactGraph: any maxIterations from 1 to 200 ends finished or uncertain, whatever recursionLimit the caller passes', async () => {
    const { search } = searchTool();
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1, max: 230 }), fc.constantFrom(undefined, 1, 5, 25), async (maxIterations, finishAt, recursionLimit) => {
        const graph = createReactGraph({ model: searchingUntil(finishAt), tools: [search], finishSchema: answerSchema, maxIterations, ...noWait }).compile();
        const { react } = await graph.invoke(ask, recursionLimit === undefined ? {} : { recursionLimit });
        expectEnded(react, maxIterations, finishAt);
      }),
      { numRuns: 14, examples: [[13, 300, undefined], [200, 300, 5], [1, 1, 1], [12, 12, 25]] },
    );
  });

  it('createVerificationGraph: a model that never finishes ends budget_iterations at any maxIterations, with a checkpointer too', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 200 }), async (maxIterations) => {
        let n = 0;
        const model = readingModel(() => calls(['search_policy', { query: `clause ${++n}` }]), 210);
        const verifier = createVerificationGraph({ model, retriever: refundPolicy, maxIterations, checkpointer: new MemorySaver(), ...noWait });
        const { result } = await verifier.invoke({ caseBundle: promptClaim, criterion: FILED_IN_TIME }, { configurable: { thread_id: `t${maxIterations}` }, recursionLimit: 3 });
        expect(result).toMatchObject({ status: 'uncertain', reasonCode: 'budget_iterations', usage: { iterations: maxIterations } });
      }),
      { numRuns: 6, examples: [[13], [200]] },
    );
  });

  it('holds inside a parent graph with the default recursion limit (a subgraph)', async () => {
    const { search } = searchTool();
    const inner = createReactGraph({ model: searchingUntil(Infinity), tools: [search], finishSchema: answerSchema, maxIterations: 30, ...noWait }).compile();
    const Parent = Annotation.Root({ ...MessagesAnnotation.spec, react: Annotation<{ status: string; iterations: number }>() });
    const parent = new StateGraph(Parent).addNode('controller', inner).addEdge(START, 'controller').compile();
    const state = await parent.invoke(ask);
    expect(state.react).toMatchObject({ status: 'uncertain', reasonCode: 'budget_iterations', iterations: 30 });
  });

  it('holds when the run is streamed, in any mode, or read through streamEvents', async () => {
    const { search } = searchTool();
    const graph = () => createReactGraph({ model: searchingUntil(Infinity), tools: [search], finishSchema: answerSchema, maxIterations: 13, ...noWait }).compile();
    for (const streamMode of ['values', 'updates', 'messages', 'debug', 'tasks'] as const) {
      let chunks = 0;
      for await (const _chunk of await graph().stream(ask, { streamMode, recursionLimit: 2 })) chunks++;
      expect(chunks).toBeGreaterThan(0);
    }
    let last: unknown;
    for await (const chunk of await graph().stream(ask, { streamMode: 'values' })) last = chunk;
    expect((last as { react: unknown }).react).toMatchObject({ status: 'uncertain', reasonCode: 'budget_iterations', iterations: 13 });
    const ends = [];
    for await (const event of graph().streamEvents(ask, { version: 'v2', recursionLimit: 2 })) if (event.event === 'on_chain_end' && event.name === 'panoptes_react') ends.push(event);
    expect(ends).toHaveLength(1);
  });

  it('reactRecursionLimit leaves room for the whole budget', () => {
    expect(reactRecursionLimit(13)).toBeGreaterThanOrEqual(2 * 13 + 4);
  });
});
