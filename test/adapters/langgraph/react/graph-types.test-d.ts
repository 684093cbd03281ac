import { HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { Annotation, Command, MemorySaver, START, StateGraph, type StateSnapshot } from '@langchain/langgraph';
import { expectTypeOf } from 'vitest';
import { z } from 'zod';
import {
  createReactGraph,
  createVerificationGraph,
  resumeCase,
  verifyCase,
  VerificationInputAnnotation,
  VerificationOutputAnnotation,
  type CriterionResult,
  type ReactControllerState,
  type VerificationFallbackContext,
} from '../../../../adapters/langgraph/index.js';

const thread = { configurable: { thread_id: 'claims-1' } };
const input = { caseBundle: { days_since_flight: 12 }, criterion: { id: 'filed_in_time', text: 'Filed within 30 days.' } };
const verifier = createVerificationGraph({ model: fakeModel(), retriever: async () => [], checkpointer: new MemorySaver() });

// invoke: the input is checked, the output holds the typed result
const output = await verifier.invoke(input, thread);
expectTypeOf(output.result).toEqualTypeOf<CriterionResult | undefined>();
// @ts-expect-error a misspelt input key
await verifier.invoke({ caseBundle: {}, critrion: { id: 'c', text: 't' } }, thread);
// @ts-expect-error a criterion has its text
await verifier.invoke({ caseBundle: {}, criterion: { id: 'c' } }, thread);
// @ts-expect-error the output is the result, not the whole state
void output.messages;
await verifier.invoke(new Command({ resume: 'approved' }), thread);

// stream, in every mode, without casts
for await (const chunk of await verifier.stream(input, { ...thread, streamMode: 'values' })) expectTypeOf(chunk.result).toEqualTypeOf<CriterionResult | undefined>();
for await (const chunk of await verifier.stream(input, { ...thread, streamMode: 'updates' })) expectTypeOf(chunk).toHaveProperty('conclude');
for await (const [message] of await verifier.stream(input, { ...thread, streamMode: 'messages' })) expectTypeOf(message).toEqualTypeOf<BaseMessage>();
for await (const [mode] of await verifier.stream(input, { ...thread, streamMode: ['values', 'updates', 'debug', 'custom', 'checkpoints', 'tasks', 'messages'] })) expectTypeOf(mode).toBeString();
for await (const event of verifier.streamEvents(input, { ...thread, version: 'v2' })) expectTypeOf(event.event).toBeString();

// getState and updateState
expectTypeOf(await verifier.getState(thread)).toEqualTypeOf<StateSnapshot>();
await verifier.updateState(thread, { caseBundle: { days_since_flight: 13 } });

// a subgraph of a graph that shares its input and output keys
const Claim = Annotation.Root({ ...VerificationInputAnnotation.spec, ...VerificationOutputAnnotation.spec, approved: Annotation<boolean>() });
const review = new StateGraph(Claim).addNode('verify', verifier).addEdge(START, 'verify').compile();
expectTypeOf((await review.invoke(input)).result).toEqualTypeOf<CriterionResult | undefined>();

// verifyCase and resumeCase take the compiled graph as it is
const [first] = await verifyCase(verifier, input.caseBundle, [input.criterion]);
expectTypeOf(first!.status).toEqualTypeOf<'met' | 'not_met' | 'uncertain' | 'paused'>();
expectTypeOf(resumeCase(verifier, first!, 'approved')).resolves.toEqualTypeOf<CriterionResult>();

// the fallback function sees the case and the criterion
createVerificationGraph({
  model: fakeModel(),
  retriever: async () => [],
  fallback: (context) => {
    expectTypeOf(context).toEqualTypeOf<VerificationFallbackContext>();
    expectTypeOf(context.caseBundle).toEqualTypeOf<Record<string, unknown>>();
    return { status: 'uncertain', confidence: 0, rationale: 'no rule applies' };
  },
});

// the ReAct graph: `react.output` is what the finish schema parses
const search = tool(async () => 'ok', { name: 'search', description: 'Search.', schema: z.object({ query: z.string() }) });
const graph = createReactGraph({ model: fakeModel(), tools: [search], finishSchema: z.object({ answer: z.string(), confidence: z.number() }) }).compile();
const { react } = await graph.invoke({ messages: [new HumanMessage('Is an MRI covered?')] });
expectTypeOf(react).toEqualTypeOf<ReactControllerState<{ answer: string; confidence: number }>>();
expectTypeOf(react.output).toEqualTypeOf<{ answer: string; confidence: number } | undefined>();
// @ts-expect-error a misspelt input key
await graph.invoke({ mesages: [new HumanMessage('hi')] });
for await (const chunk of await graph.stream({ messages: [new HumanMessage('hi')] }, { streamMode: 'updates' })) expectTypeOf(chunk).toHaveProperty('model');
