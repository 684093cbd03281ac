import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { Command, interrupt, MemorySaver } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createReactGraph, NO_TOOL_CALL_NUDGE, resumeCommand, toolCallRecord } from '../../../../adapters/langgraph/index.js';
import { InvalidOptionError } from '../../../../src/index.js';
import { refundSetup } from '../../../guards/helpers.js';
import { recordingLogger } from '../../langchain/helpers.js';
import { answerSchema, calls, httpError, lastHuman, noWait, searchTool, withUsage } from './helpers.js';

const ask = (text = 'Is an MRI covered?') => ({ messages: [new HumanMessage(text)] });
const finish = (args: Record<string, unknown> = { answer: 'yes', confidence: 0.9 }) => calls(['finish', args]);

describe('createReactGraph', () => {
  it('runs until finish and returns the parsed arguments', async () => {
    const { search, runs } = searchTool();
    const model = fakeModel().respond(calls(['search', { query: 'mri' }])).respond(finish());
    const state = await createReactGraph({ model, tools: [search], finishSchema: answerSchema, ...noWait }).compile().invoke(ask());
    expect(state.react).toMatchObject({ status: 'finished', output: { answer: 'yes', confidence: 0.9 }, iterations: 2, modelAttempts: 2, fallbackUsed: false });
    expect(runs).toEqual(['mri']);
    expect(model.callCount).toBe(2);
  });

  it('records a lone valid finish in the model step, and sends finish beside other calls or invalid through the tools step', async () => {
    const { search } = searchTool();
    const steps = async (model: ReturnType<typeof fakeModel>) => {
      const nodes: string[] = [];
      for await (const chunk of await createReactGraph({ model, tools: [search], finishSchema: answerSchema, ...noWait }).compile().stream(ask(), { streamMode: 'updates' })) nodes.push(...Object.keys(chunk));
      return nodes;
    };
    expect(await steps(fakeModel().respond(calls(['search', { query: 'mri' }])).respond(finish()))).toEqual(['model', 'tools', 'model']);
    expect(await steps(fakeModel().respond(calls(['search', { query: 'mri' }], ['finish', { answer: 'yes', confidence: 0.9 }])))).toEqual(['model', 'tools']);
    expect(await steps(fakeModel().respond(finish({ answer: 'yes', confidence: 3 })).respond(finish()))).toEqual(['model', 'tools', 'model']);
    const state = await createReactGraph({ model: fakeModel().respond(finish()), tools: [search], finishSchema: answerSchema, ...noWait }).compile().invoke(ask());
    expect(state.messages.at(-1)).toMatchObject({ content: 'Answer recorded.', name: 'finish' });
    expect(state.react).toMatchObject({ status: 'finished', output: { answer: 'yes', confidence: 0.9 } });
  });

  it('ends budget_iterations after exactly maxIterations model calls when the model never finishes', async () => {
    const { search } = searchTool();
    const model = fakeModel();
    for (let index = 0; index < 10; index++) model.respond(calls(['search', { query: `q${index}` }]));
    const state = await createReactGraph({ model, tools: [search], finishSchema: answerSchema, maxIterations: 4, ...noWait }).compile().invoke(ask());
    expect(model.callCount).toBe(4);
    expect(state.react).toMatchObject({ status: 'uncertain', reasonCode: 'budget_iterations', iterations: 4 });
    expect(state.react.detail).toContain('maxIterations (4)');
  });

  it('nudges a model that answers without a tool call, and counts that answer as an iteration', async () => {
    const { search } = searchTool();
    const model = fakeModel().respond(new AIMessage('I think so.')).respond(finish());
    const state = await createReactGraph({ model, tools: [search], finishSchema: answerSchema, ...noWait }).compile().invoke(ask());
    expect(lastHuman(model.calls[1]!.messages as never)).toBe(NO_TOOL_CALL_NUDGE);
    expect(state.react).toMatchObject({ status: 'finished', iterations: 2 });
    expect(state.messages.some((message) => message.content === NO_TOOL_CALL_NUDGE)).toBe(false); // never stored
  });

  it('ends budget_tokens when the usage reported mid-run passes maxTokens, and only warns with onTokenBudget warn', async () => {
    const { search } = searchTool();
    const script = () => fakeModel().respond(withUsage(calls(['search', { query: 'a' }]), 2000, 100)).respond(withUsage(calls(['search', { query: 'b' }]), 3000, 100)).respond(withUsage(finish(), 3500, 50));
    const stopped = await createReactGraph({ model: script(), tools: [search], finishSchema: answerSchema, maxTokens: 5000, ...noWait }).compile().invoke(ask());
    expect(stopped.react).toMatchObject({ status: 'uncertain', reasonCode: 'budget_tokens', iterations: 2, inputTokens: 5000, outputTokens: 200 });
    expect(stopped.react.detail).toBe('the run used 5200 tokens; maxTokens is 5000');

    const logger = recordingLogger();
    const warned = await createReactGraph({ model: script(), tools: [search], finishSchema: answerSchema, maxTokens: 5000, onTokenBudget: 'warn', logger, ...noWait }).compile().invoke(ask());
    expect(warned.react.status).toBe('finished');
    expect(logger.warnings[0]).toContain("the run used 5200 tokens; maxTokens is 5000; going on (onTokenBudget: 'warn')");
  });

  it('ends budget_cost at the price table', async () => {
    const { search } = searchTool();
    const model = fakeModel().respond(withUsage(calls(['search', { query: 'a' }]), 1000, 1000, 'gpt-4o-mini-2024-07-18')).respond(withUsage(calls(['search', { query: 'b' }]), 1000, 1000, 'gpt-4o-mini-2024-07-18'));
    const state = await createReactGraph({ model, tools: [search], finishSchema: answerSchema, maxCostUsd: 0.01, prices: { 'gpt-4o-mini': { input: 1, output: 5 } }, ...noWait }).compile().invoke(ask());
    expect(state.react).toMatchObject({ status: 'uncertain', reasonCode: 'budget_cost', iterations: 2 });
    expect(state.react.costUsd).toBeCloseTo(0.012, 6);
  });

  it('retries a 429 twice through LangGraph, waiting the backoff through the injected sleep', async () => {
    const { search } = searchTool();
    const waits: number[] = [];
    const model = fakeModel().respond(httpError(429, 'Rate limit reached')).respond(httpError(429, 'Rate limit reached')).respond(finish());
    const state = await createReactGraph({ model, tools: [search], finishSchema: answerSchema, retry: { jitter: false }, sleep: async (ms) => void waits.push(ms) }).compile().invoke(ask());
    expect(state.react).toMatchObject({ status: 'finished', iterations: 1, modelAttempts: 3 });
    expect(model.callCount).toBe(3);
    expect(waits).toEqual([1000, 2000]);
  });

  it('ends llm_error on a permanent error without retrying it, when there is no fallback', async () => {
    const { search } = searchTool();
    const model = fakeModel().respond(httpError(401, 'Incorrect API key provided'));
    const state = await createReactGraph({ model, tools: [search], finishSchema: answerSchema, ...noWait }).compile().invoke(ask());
    expect(model.callCount).toBe(1);
    expect(state.react).toMatchObject({ status: 'uncertain', reasonCode: 'llm_error', fallbackUsed: false });
    expect(state.react.detail).toBe('APIError (401): Incorrect API key provided');
  });

  it('hands a dead model to a fallback model, and says so', async () => {
    const { search } = searchTool();
    const model = fakeModel().alwaysThrow(httpError(503, 'Service unavailable'));
    const fallback = fakeModel().respond(finish({ answer: 'from fallback', confidence: 0.7 }));
    const state = await createReactGraph({ model, tools: [search], finishSchema: answerSchema, fallback, ...noWait }).compile().invoke(ask());
    expect(model.callCount).toBe(4); // retries ran out first
    expect(state.react).toMatchObject({ status: 'finished', output: { answer: 'from fallback' }, fallbackUsed: true });
  });

  it('takes a fallback function result after a permanent error, validated by the schema', async () => {
    const { search } = searchTool();
    const model = fakeModel().respond(httpError(403, 'Forbidden'));
    const state = await createReactGraph({ model, tools: [search], finishSchema: answerSchema, fallback: ({ error }) => ({ answer: `heuristic after ${(error as Error).message}`, confidence: 0.5 }), ...noWait })
      .compile()
      .invoke(ask());
    expect(state.react).toMatchObject({ status: 'finished', output: { answer: 'heuristic after Forbidden', confidence: 0.5 }, fallbackUsed: true });
  });

  it('sends an invalid finish back with the schema issues, and accepts the repaired one', async () => {
    const { search } = searchTool();
    const model = fakeModel().respond(finish({ answer: 'yes', confidence: 3 })).respond(finish());
    const state = await createReactGraph({ model, tools: [search], finishSchema: answerSchema, ...noWait }).compile().invoke(ask());
    const error = state.messages.find((message) => message.getType() === 'tool') as ToolMessage;
    expect(error.status).toBe('error');
    expect(error.content).toContain('- confidence: Too big: expected number to be <=1');
    expect(state.react).toMatchObject({ status: 'finished', output: { answer: 'yes', confidence: 0.9 } });
  });

  it('ends invalid_finish when finish is never repaired within maxFinishRepairs', async () => {
    const { search } = searchTool();
    const model = fakeModel();
    for (let index = 0; index < 5; index++) model.respond(finish({ answer: 42 }));
    const state = await createReactGraph({ model, tools: [search], finishSchema: answerSchema, maxFinishRepairs: 2, ...noWait }).compile().invoke(ask());
    expect(model.callCount).toBe(3);
    expect(state.react).toMatchObject({ status: 'uncertain', reasonCode: 'invalid_finish' });
    expect(state.react.detail).toBe('finish was called with invalid arguments 3 times; maxFinishRepairs is 2');
  });

  it('runs the tool calls of one step concurrently', async () => {
    const events: string[] = [];
    const slow = (name: string) =>
      tool(
        async () => {
          events.push(`${name} start`);
          await new Promise((resolve) => setTimeout(resolve, 50));
          events.push(`${name} end`);
          return name;
        },
        { name, description: name, schema: z.object({}) },
      );
    const model = fakeModel().respond(calls(['a', {}], ['b', {}])).respond(finish());
    const state = await createReactGraph({ model, tools: [slow('a'), slow('b')], finishSchema: answerSchema, ...noWait }).compile().invoke(ask());
    expect(state.react.status).toBe('finished');
    expect(events.slice(0, 2).sort()).toEqual(['a start', 'b start']); // both started before either ended
  });

  it('answers an identical call from the thread instead of running the tool again', async () => {
    const { search, runs } = searchTool();
    const model = fakeModel().respond(calls(['search', { query: 'mri' }])).respond(calls(['search', { query: 'mri' }])).respond(finish());
    const state = await createReactGraph({ model, tools: [search], finishSchema: answerSchema, ...noWait }).compile().invoke(ask());
    expect(runs).toEqual(['mri']);
    const answers = state.messages.filter((message) => message.getType() === 'tool' && message.name === 'search');
    expect(answers.map((message) => toolCallRecord(message)?.cached ?? false)).toEqual([false, true]);
    expect(answers[1]!.content).toBe(answers[0]!.content);
  });

  it('answers malformed tool-call arguments with an error observation, counted', async () => {
    const { search, runs } = searchTool();
    const broken = new AIMessage({ content: '', invalid_tool_calls: [{ name: 'search', args: '{"query": mri', id: 'bad-1', error: 'Unexpected token m', type: 'invalid_tool_call' }] });
    const model = fakeModel().respond(broken).respond(finish());
    const state = await createReactGraph({ model, tools: [search], finishSchema: answerSchema, ...noWait }).compile().invoke(ask());
    expect(runs).toEqual([]);
    const observation = state.messages.find((message) => message.getType() === 'tool') as ToolMessage;
    expect(observation.content).toBe('Your call to search was not run: its arguments are not a JSON object (Unexpected token m). Call it again with valid JSON arguments.');
    expect(state.react).toMatchObject({ status: 'finished', malformedToolCalls: 1 });
  });

  it('lets the sentinel refuse a tool call it cannot prove allowed: the tool never runs, the model reads the blockers', async () => {
    // finish has no guard in this rulebase: the sentinel judges it too, so unguarded tools are allowed here
    const { sentinel } = refundSetup({ B1: { status: 'cancelled_by_airline', delay_minutes: 0 } }, { unguardedTools: 'allow' });
    const refunds: string[] = [];
    const issueRefund = tool(async ({ booking_id }: { booking_id: string }) => (refunds.push(booking_id), 'Refunded.'), { name: 'issue_refund', description: 'Refund a booking', schema: z.object({ booking_id: z.string() }) });
    const model = fakeModel().respond(calls(['issue_refund', { booking_id: 'B1' }])).respond(finish({ answer: 'not yet', confidence: 0.6 }));
    const state = await createReactGraph({ model, tools: [issueRefund], finishSchema: answerSchema, sentinel, ...noWait }).compile().invoke(ask('Refund B1.'));
    const refusal = state.messages.find((message) => message.getType() === 'tool') as ToolMessage;
    expect(refusal.status).toBe('error');
    expect(String(refusal.content)).toMatch(/^issue_refund is not allowed yet\. To proceed:\n- Find out the booking the customer is asking about \(booking_of_interest\)/);
    expect(refunds).toEqual([]);
    expect(state.react).toMatchObject({ status: 'finished', output: { answer: 'not yet' } });
  });

  it('pauses on an interrupt in a tool and resumes in a new graph instance with the checkpointer', async () => {
    const review = tool(async ({ note }: { note: string }) => `reviewer said: ${interrupt({ note }) as string}`, { name: 'human_review', description: 'Ask a human.', schema: z.object({ note: z.string() }) });
    const script = () => fakeModel().respond(calls(['human_review', { note: 'check MRI' }, 'r1'])).respond((messages) => finish({ answer: String(messages.at(-1)?.content), confidence: 0.8 }));
    const checkpointer = new MemorySaver();
    const thread = { configurable: { thread_id: 'case-7' } };
    const first = script();
    const paused = await createReactGraph({ model: first, tools: [review], finishSchema: answerSchema, ...noWait }).compile({ checkpointer }).invoke(ask(), thread);
    expect(paused.react.status).toBe('running');
    expect((paused as unknown as { __interrupt__: Array<{ value: unknown }> }).__interrupt__[0]!.value).toEqual({ note: 'check MRI' });

    const second = fakeModel().respond((messages) => finish({ answer: String(messages.at(-1)?.content), confidence: 0.8 }));
    const resumed = await createReactGraph({ model: second, tools: [review], finishSchema: answerSchema, ...noWait }).compile({ checkpointer }).invoke(new Command({ resume: 'approved' }), thread);
    expect(resumed.react).toMatchObject({ status: 'finished', output: { answer: 'reviewer said: approved' }, iterations: 2 });
  });

  it('leaves a human review out of timeoutMs when resumed with resumeCommand, and counts it otherwise', async () => {
    let now = Date.now(); // the checkpoint's createdAt is wall time: the test clock starts there and jumps an hour
    const clock = { now: () => now };
    const review = tool(async () => `reviewer said: ${interrupt('approve?') as string}`, { name: 'human_review', description: 'Ask a human.', schema: z.object({}) });
    const run = async (resumeWith: (graph: ReturnType<typeof build>, thread: { configurable: { thread_id: string } }) => ReturnType<typeof resumeCommand>) => {
      const thread = { configurable: { thread_id: `case-${Math.random()}` } };
      await build(fakeModel().respond(calls(['human_review', {}]))).invoke(ask(), thread);
      now += 3_600_000;
      const graph = build(fakeModel().respond(finish()));
      return (await graph.invoke(await resumeWith(graph, thread), thread)).react;
    };
    const checkpointer = new MemorySaver();
    const build = (model: ReturnType<typeof fakeModel>) => createReactGraph({ model, tools: [review], finishSchema: answerSchema, timeoutMs: 60_000, clock, ...noWait }).compile({ checkpointer });
    expect(await run(async () => new Command({ resume: 'yes' }))).toMatchObject({ status: 'uncertain', reasonCode: 'timeout' });
    const resumed = await run((graph, thread) => resumeCommand(graph, thread, 'yes', { clock }));
    expect(resumed).toMatchObject({ status: 'finished', output: { answer: 'yes' } });
  });

  it('ends timeout when the evaluation passes timeoutMs between steps, with no exception', async () => {
    let now = 0;
    const tick = tool(async () => ((now += 1000), 'ok'), { name: 'tick', description: 'Takes a second.', schema: z.object({}) });
    const model = fakeModel().respond(calls(['tick', {}])).respond(finish());
    const state = await createReactGraph({ model, tools: [tick], finishSchema: answerSchema, timeoutMs: 500, clock: { now: () => now }, ...noWait }).compile().invoke(ask());
    expect(model.callCount).toBe(1);
    expect(state.react).toMatchObject({ status: 'uncertain', reasonCode: 'timeout', detail: 'the evaluation ran past timeoutMs (500 ms)' });
  });

  it('ends timeout when a model call outlives timeoutMs, aborting it', async () => {
    const { search } = searchTool();
    let aborted = false;
    const model = fakeModel().respond(calls(['search', { query: 'a' }]));
    const hanging = Object.assign(Object.create(model), {
      bindTools: () => ({ invoke: (_messages: unknown, options: { signal?: AbortSignal }) => new Promise((_resolve, reject) => options.signal?.addEventListener('abort', () => ((aborted = true), reject(new Error('aborted'))))) }),
    });
    const state = await createReactGraph({ model: hanging, tools: [search], finishSchema: answerSchema, timeoutMs: 20, ...noWait }).compile().invoke(ask());
    expect(state.react).toMatchObject({ status: 'uncertain', reasonCode: 'timeout', detail: 'the model call ran past timeoutMs (20 ms)' });
    expect(aborted).toBe(true);
  });
});

describe('createReactGraph node timeouts (LangGraph timeout)', () => {
  const never = () => new Promise<never>(() => {});
  it('retries a model attempt that outlives modelTimeoutMs, then ends llm_error', async () => {
    const { search } = searchTool();
    let attempts = 0;
    const model = fakeModel();
    const stuck = Object.assign(Object.create(model), { bindTools: () => ({ invoke: () => (attempts++, never()) }) });
    const state = await createReactGraph({ model: stuck, tools: [search], finishSchema: answerSchema, modelTimeoutMs: 10, ...noWait }).compile().invoke(ask());
    expect(attempts).toBe(4);
    expect(state.react).toMatchObject({ status: 'uncertain', reasonCode: 'llm_error' });
    expect(state.react.detail).toContain('NodeTimeoutError');
  });
  it('ends timeout when a tools step outlives toolTimeoutMs', async () => {
    const hang = tool(async () => never(), { name: 'hang', description: 'Never answers.', schema: z.object({}) });
    const model = fakeModel().respond(calls(['hang', {}])).respond(finish());
    const state = await createReactGraph({ model, tools: [hang], finishSchema: answerSchema, toolTimeoutMs: 10, ...noWait }).compile().invoke(ask());
    expect(state.react).toMatchObject({ status: 'uncertain', reasonCode: 'timeout' });
    expect(model.callCount).toBe(1);
  });
});

describe('createReactGraph options', () => {
  const { search } = searchTool();
  it('refuses a graph without tools', () => {
    expect(() => createReactGraph({ model: fakeModel(), tools: [], finishSchema: answerSchema })).toThrow(new InvalidOptionError({ parameter: 'tools', value: [], fix: 'Pass at least one tool for the model to gather evidence with; finish is added for you.' }));
  });
  it('refuses a finish schema that is not an object schema', () => {
    expect(() => createReactGraph({ model: fakeModel(), tools: [search], finishSchema: z.string() as never })).toThrow('Invalid option `finishSchema`: received "a string schema". Pass a zod object schema');
  });
  it('refuses a budget that is not a positive whole number', () => {
    expect(() => createReactGraph({ model: fakeModel(), tools: [search], finishSchema: answerSchema, maxIterations: 0 })).toThrow('Invalid option `maxIterations`: received 0. Pass a whole number above 0.');
  });
});
