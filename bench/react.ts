/**
 * ReAct verification graphs (issue 16), each row compared with its baseline in the same run:
 * - the graph's cost per iteration against LangChain's `createAgent`, same scripted model and tools (CPU time, pairs
 *   of runs made moments apart, the order alternating): ratio <= 1.1;
 * - three 50 ms tools called in one step: the run's wall time <= 60 ms (the model answers at once);
 * - 100 criteria through `verifyCase`, concurrency 10, a model answering after 50 ms, 3 iterations each: wall time
 *   <= 1.2 x the ideal 100 / 10 x 3 x 50 ms = 1,500 ms, beside `createAgent` doing the same 300 model calls;
 * - a cached repeated tool call: the lookup in a thread of 20 messages <= 50 us, and the whole cached call through
 *   the tool as `ToolNode` invokes it, for comparison with the same tool running.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { ChatResult } from '@langchain/core/outputs';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { z } from 'zod';
import { mapWithConcurrency } from 'panoptes';
import { createReactGraph, createVerificationGraph, earlierToolAnswer, verifyCase } from 'panoptes/langgraph';
import { measure, summarize, timedRun, type BenchRow } from './harness.js';

const SUITE = 'react';
let ids = 0;
const call = (name: string, args: Record<string, unknown>) => new AIMessage({ content: '', tool_calls: [{ id: `call_${++ids}`, name, args, type: 'tool_call' }] });
const search = tool(async ({ query }) => `Results for ${query}: section 2.1 requires six weeks of therapy.`, { name: 'search', description: 'Search the policy.', schema: z.object({ query: z.string() }) });
const answerSchema = z.object({ answer: z.string(), confidence: z.number() });

/** Three model calls per run: two searches and the end (finish for ours, a text answer for createAgent). */
function scripted(runs: number, end: () => AIMessage) {
  const model = fakeModel();
  for (let index = 0; index < runs; index++) model.respond(() => call('search', { query: `a${index}` })).respond(() => call('search', { query: `b${index}` })).respond(end);
  return model;
}

async function overheadRows(): Promise<BenchRow[]> {
  const SAMPLES = 600;
  const WARMUP = 60;
  const runs = SAMPLES + WARMUP + 5;
  const ours = createReactGraph({ model: scripted(runs, () => call('finish', { answer: 'yes', confidence: 0.9 })), tools: [search], finishSchema: answerSchema }).compile();
  const theirs = createAgent({ model: scripted(runs, () => new AIMessage('Yes: section 2.1.')), tools: [search] });
  const input = () => ({ messages: [new HumanMessage('Is an MRI covered?')] });
  const samples: Array<{ ours: number; theirs: number; oursWall: number; theirsWall: number }> = [];
  for (let index = 0; index < SAMPLES + WARMUP; index++) {
    const order = index % 2 ? (['theirs', 'ours'] as const) : (['ours', 'theirs'] as const);
    const cost = {} as Record<'ours' | 'theirs', { wallUs: number; cpuUs: number }>;
    for (const which of order) cost[which] = await timedRun(() => (which === 'ours' ? ours.invoke(input()) : theirs.invoke(input())));
    if (index >= WARMUP) samples.push({ ours: cost.ours.cpuUs / 3, theirs: cost.theirs.cpuUs / 3, oursWall: cost.ours.wallUs / 3, theirsWall: cost.theirs.wallUs / 3 });
  }
  const oursCpu = summarize(samples.map((sample) => sample.ours));
  const theirsCpu = summarize(samples.map((sample) => sample.theirs));
  const ratio = oursCpu.p50Us / theirsCpu.p50Us;
  return [
    { suite: SUITE, name: 'createAgent (baseline), per iteration, CPU time', samples: SAMPLES, ...theirsCpu },
    {
      suite: SUITE,
      name: 'createReactGraph, per iteration, CPU time',
      samples: SAMPLES,
      ...oursCpu,
      extra: { 'ratio to createAgent (p50)': Number(ratio.toFixed(3)), 'createAgent p50 wall us': Math.round(summarize(samples.map((sample) => sample.theirsWall)).p50Us), 'createReactGraph p50 wall us': Math.round(summarize(samples.map((sample) => sample.oursWall)).p50Us) },
      target: 'ratio <= 1.1',
      met: ratio <= 1.1,
    },
  ];
}

async function parallelToolRows(): Promise<BenchRow[]> {
  const SAMPLES = 40;
  const slow = (name: string) => tool(async () => (await new Promise((resolve) => setTimeout(resolve, 50)), name), { name, description: name, schema: z.object({}) });
  const model = fakeModel();
  for (let index = 0; index < SAMPLES + 5; index++) model.respond(() => call('a', {})).respond(() => new AIMessage({ content: '', tool_calls: [{ id: `x${++ids}`, name: 'a', args: {}, type: 'tool_call' }, { id: `y${++ids}`, name: 'b', args: {}, type: 'tool_call' }, { id: `z${++ids}`, name: 'c', args: {}, type: 'tool_call' }] })).respond(() => call('finish', { answer: 'done', confidence: 1 }));
  const graph = createReactGraph({ model, tools: [slow('a'), slow('b'), slow('c')], finishSchema: answerSchema }).compile();
  const oneTool: number[] = [];
  const threeTools: number[] = [];
  // each run: a step with one 50 ms tool (the baseline), a step with three, then finish; timed per step from the trace
  for (let index = 0; index < SAMPLES + 3; index++) {
    const steps: number[] = [];
    let last = performance.now();
    for await (const chunk of await graph.stream({ messages: [new HumanMessage('go')] }, { streamMode: 'updates' })) {
      const now = performance.now();
      if ('tools' in chunk) steps.push((now - last) * 1000);
      last = now;
    }
    if (index >= 3) [oneTool[oneTool.length], threeTools[threeTools.length]] = [steps[0]!, steps[1]!];
  }
  const three = summarize(threeTools);
  return [
    { suite: SUITE, name: 'one 50 ms tool in a step (baseline), tools step wall time', samples: SAMPLES, ...summarize(oneTool) },
    { suite: SUITE, name: 'three 50 ms tools in one step, tools step wall time', samples: SAMPLES, ...three, target: '<= 60 ms', met: three.p50Us <= 60_000 },
  ];
}

/** A chat model that answers after `delayMs`, reading its request: a search, the case's facts, then finish. */
class DelayedVerifier extends BaseChatModel {
  /** `text`: the third answer is text, as a createAgent agent ends, rather than a finish call. */
  constructor(
    private readonly delayMs: number,
    private readonly end: 'finish' | 'text' = 'finish',
  ) {
    super({});
  }
  _llmType() {
    return 'delayed-verifier';
  }
  override bindTools() {
    return this as never;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    const answered = messages.filter((message) => message.getType() === 'tool').length;
    const message = answered === 0 ? call('search_policy', { query: 'therapy' }) : answered === 1 ? call('get_case_facts', { fields: ['weeks'] }) : this.end === 'text' ? new AIMessage('met') : call('finish', { status: 'met', confidence: 0.9, citations: [{ source: 'policy.md', quote: 'six weeks of therapy' }], rationale: '8 weeks.' });
    return { generations: [{ message, text: '' }] };
  }
}

async function concurrencyRows(): Promise<BenchRow[]> {
  const RUNS = 3;
  const graph = createVerificationGraph({ model: new DelayedVerifier(50), retriever: async () => [{ pageContent: 'Section 2.1: six weeks of therapy are required.', metadata: { source: 'policy.md' } }] });
  const criteria = Array.from({ length: 100 }, (_, index) => ({ id: `c${index}`, text: `Requirement ${index}` }));
  // The baseline: LangChain's createAgent doing the same 100 runs of 3 model calls, 10 at once, with stand-ins for
  // the verifier's tools: what the host alone costs on this machine.
  const stub = (name: string) => tool(async () => 'ok', { name, description: name, schema: z.object({}).passthrough() });
  const agent = createAgent({ model: new DelayedVerifier(50, 'text'), tools: [stub('search_policy'), stub('get_case_facts'), stub('finish')] });
  const costs = { ours: [] as Array<{ wallUs: number; cpuUs: number }>, theirs: [] as Array<{ wallUs: number; cpuUs: number }> };
  let met = 0;
  for (let run = 0; run < RUNS + 1; run++) {
    const ours = await timedRun(async () => {
      const results = await verifyCase(graph, { weeks: 8 }, criteria, { concurrency: 10 });
      met = results.filter((result) => result.status === 'met' && result.usage.iterations === 3).length;
    });
    const theirs = await timedRun(() => mapWithConcurrency(criteria, 10, (criterion) => agent.invoke({ messages: [new HumanMessage(criterion.text)] })));
    if (run > 0) [costs.ours[costs.ours.length], costs.theirs[costs.theirs.length]] = [ours, theirs];
  }
  const wall = summarize(costs.ours.map((cost) => cost.wallUs));
  const ideal = (100 / 10) * 3 * 50_000;
  const p50 = (list: Array<{ wallUs: number; cpuUs: number }>, key: 'wallUs' | 'cpuUs') => Math.round(summarize(list.map((cost) => cost[key])).p50Us);
  return [
    { suite: SUITE, name: 'baseline: createAgent, the same 100 runs of 3 model calls (50 ms), 10 at once: wall time', samples: RUNS, ...summarize(costs.theirs.map((cost) => cost.wallUs)), extra: { 'CPU us (p50)': p50(costs.theirs, 'cpuUs') } },
    {
      suite: SUITE,
      name: '100 criteria, concurrency 10, model 50 ms, 3 iterations each: verifyCase wall time',
      samples: RUNS,
      ...wall,
      extra: { 'ideal us': ideal, 'ratio to ideal (p50)': Number((wall.p50Us / ideal).toFixed(3)), 'ratio to createAgent (p50)': Number((wall.p50Us / summarize(costs.theirs.map((cost) => cost.wallUs)).p50Us).toFixed(3)), 'CPU us (p50)': p50(costs.ours, 'cpuUs'), 'criteria met in 3 iterations': met },
      target: '<= 1.2 x ideal',
      met: wall.p50Us <= 1.2 * ideal,
    },
  ];
}

function cacheRows(): BenchRow[] {
  // a thread of 20 messages: the question, then 9 searches with their answers, and one repeated call
  const messages: BaseMessage[] = [new HumanMessage('Is an MRI covered?')];
  for (let index = 0; index < 9; index++) {
    const ai = call('search', { query: `query ${index}`, filters: { section: index } });
    messages.push(ai, new ToolMessage({ content: `Results ${index}`, tool_call_id: ai.tool_calls![0]!.id!, name: 'search' }));
  }
  const repeated = { id: 'repeat', name: 'search', args: { filters: { section: 4 }, query: 'query 4' } };
  if (!earlierToolAnswer(messages, repeated)) throw new Error('the bench thread must hold the repeated call');
  const lookup = measure(() => earlierToolAnswer(messages, repeated), { samples: 2000, warmup: 500, batch: 10 });
  return [{ suite: SUITE, name: 'cached repeated tool call: lookup in a thread of 20 messages', ...lookup, target: '<= 50 us', met: lookup.p50Us <= 50 }];
}

export async function reactBench(): Promise<BenchRow[]> {
  return [...cacheRows(), ...(await overheadRows()), ...(await parallelToolRows()), ...(await concurrencyRows())];
}
