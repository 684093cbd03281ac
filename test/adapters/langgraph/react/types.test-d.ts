import { HumanMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { expectTypeOf } from 'vitest';
import { z } from 'zod';
import { createReactGraph, createVerificationGraph, verifyCase, type CriterionResult, type ReactControllerState, type ReactGraphOptions } from '../../../../adapters/langgraph/index.js';

const search = tool(async () => 'ok', { name: 'search', description: 'Search.', schema: z.object({ query: z.string() }) });
const finishSchema = z.object({ answer: z.string() });

// The compiled graph's state carries the controller's state, typed.
const graph = createReactGraph({ model: fakeModel(), tools: [search], finishSchema }).compile();
const state = await graph.invoke({ messages: [new HumanMessage('hi')] });
expectTypeOf(state.react).toEqualTypeOf<ReactControllerState<{ answer: string }>>();
expectTypeOf(state.react.status).toEqualTypeOf<'running' | 'finished' | 'uncertain'>();

// A fallback function returns what finish would: the schema's output type.
expectTypeOf<NonNullable<ReactGraphOptions<{ answer: string }>['fallback']>>().extract<(...args: never[]) => unknown>().returns.toEqualTypeOf<{ answer: string } | Promise<{ answer: string }>>();
// @ts-expect-error onTokenBudget is 'warn' or 'stop'
createReactGraph({ model: fakeModel(), tools: [search], finishSchema, onTokenBudget: 'ignore' });

// The verification graph's output holds the result; verifyCase gives one per criterion.
const verifier = createVerificationGraph({ model: fakeModel(), retriever: async () => [] });
expectTypeOf((await verifier.invoke({ caseBundle: {}, criterion: { id: 'c', text: 't' } })).result).toEqualTypeOf<CriterionResult | undefined>();
expectTypeOf(verifyCase(verifier, {}, [{ id: 'c', text: 't' }])).resolves.toEqualTypeOf<CriterionResult[]>();
