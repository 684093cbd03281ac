/**
 * The LangChain adapter's added time per model call (DESIGN.md section 13: <= 0.2 ms without embeddings): the same
 * `createAgent` run with a scripted model, without and with `panoptesMiddleware`, in pairs of runs made moments
 * apart. Two conversations: one model call answering in text, and a tool call (checked before it runs) then the
 * answer. CPU time decides the target: on a shared machine, wall time also counts the waits for a core.
 */
import { readFileSync } from 'node:fs';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { z } from 'zod';
import { panoptesMiddleware } from '../adapters/langchain/index.js';
import { createMonitor, parseWorkflow } from '../src/index.js';
import type { BenchRow } from './harness.js';

const SAMPLES = 1500;
const WARMUP = 150;

const workflow = parseWorkflow(readFileSync(new URL('../examples/workflows/customer-support.yaml', import.meta.url), 'utf8'));
const verifyIdentity = tool(async ({ customer_id }) => `Customer ${customer_id} verified.`, { name: 'verify_identity', description: 'Verify the customer', schema: z.object({ customer_id: z.string() }) });
const ANSWER = 'Glad I could help. Is there anything else I can help with?';

/** A scripted model that does not run out: each call answers from the script, in turn. */
function scriptedModel(script: ReadonlyArray<() => AIMessage>, calls: number) {
  const model = fakeModel();
  for (let i = 0; i < calls; i++) model.respond(script[i % script.length]!);
  return model;
}

const conversations = {
  'one model call (text answer)': { script: [() => new AIMessage(ANSWER)], modelCalls: 1 },
  'tool call checked, then the answer': {
    script: [() => new AIMessage({ content: '', tool_calls: [{ id: 'v1', name: 'verify_identity', args: { customer_id: '42' }, type: 'tool_call' }] }), () => new AIMessage(ANSWER)],
    modelCalls: 2,
  },
} as const;

/** One run's cost: wall time, and the process's CPU time, which other processes on a busy machine do not inflate. */
async function timed(run: () => Promise<unknown>): Promise<{ wallUs: number; cpuUs: number }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await run();
  const wallUs = (performance.now() - start) * 1000;
  const used = process.cpuUsage(cpu);
  return { wallUs, cpuUs: used.user + used.system };
}

const percentile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50Us: percentile(sorted, 0.5), p99Us: percentile(sorted, 0.99), meanUs: values.reduce((sum, value) => sum + value, 0) / values.length };
};

export async function langchainAdapterBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const [name, { script, modelCalls }] of Object.entries(conversations)) {
    const runs = (SAMPLES + WARMUP + 10) * modelCalls;
    const systemPrompt = 'You are a support agent.';
    const plain = createAgent({ model: scriptedModel(script, runs), tools: [verifyIdentity], systemPrompt });
    const monitor = createMonitor({ workflow, logger: { warn: () => {} } });
    const watched = createAgent({ model: scriptedModel(script, runs), tools: [verifyIdentity], systemPrompt, middleware: [panoptesMiddleware({ monitor })] });
    const input = () => ({ messages: [new HumanMessage('Please verify me, I am customer 42.')] });
    const runPlain = (i: number) => plain.invoke(input(), { configurable: { thread_id: `s${i % 50}` } });
    const runWatched = (i: number) => watched.invoke(input(), { configurable: { thread_id: `s${i % 50}` } });
    for (let i = 0; i < WARMUP; i++) {
      await runPlain(i);
      await runWatched(i);
    }
    // Paired samples, in alternating order: each difference compares two runs made moments apart, so drift in the
    // machine's speed cancels out; the medians of the differences are the added time.
    const added = { wall: [] as number[], cpu: [] as number[] };
    const base = { wall: [] as number[], cpu: [] as number[] };
    for (let i = 0; i < SAMPLES; i++) {
      const first = i % 2 === 0;
      const a = first ? await timed(() => runPlain(i)) : undefined;
      const b = await timed(() => runWatched(i));
      const c = a ?? (await timed(() => runPlain(i)));
      added.wall.push((b.wallUs - c.wallUs) / modelCalls);
      added.cpu.push((b.cpuUs - c.cpuUs) / modelCalls);
      base.wall.push(c.wallUs);
      base.cpu.push(c.cpuUs);
    }
    const cpu = summary(added.cpu);
    rows.push({
      suite: 'adapters-langchain',
      name: `added per model call, createAgent, ${name}, CPU time`,
      samples: SAMPLES,
      ...cpu,
      extra: { 'run without Panoptes, p50 CPU us': Math.round(summary(base.cpu).p50Us), 'model calls per run': modelCalls },
      target: '<= 200 us per model call',
      met: cpu.p50Us <= 200,
    });
    rows.push({
      suite: 'adapters-langchain',
      name: `added per model call, createAgent, ${name}, wall time`,
      samples: SAMPLES,
      ...summary(added.wall),
      extra: { 'run without Panoptes, p50 wall us': Math.round(summary(base.wall).p50Us), 'model calls per run': modelCalls },
    });
  }
  return rows;
}
