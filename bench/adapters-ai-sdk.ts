/**
 * The AI SDK adapter's cost (DESIGN.md section 13, "monitor overhead per model call without embeddings"): the time
 * `panoptesMiddleware` adds to one `generateText` / `streamText` call over `MockLanguageModelV3`, against the same
 * call without it, measured in the same run. Each sample times one call of each, back to back in alternating
 * order, and the added time is the median of those paired differences: on a busy shared machine a slow stretch
 * then lands on both sides of a pair instead of on one variant's whole run.
 */
import { generateText, streamText, wrapLanguageModel, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { fileURLToPath } from 'node:url';
import { panoptesMiddleware } from 'panoptes/ai-sdk';
import { createMonitor, loadWorkflow } from 'panoptes';
import { measureAsync, type BenchRow } from './harness.js';

const SUITE = 'adapters-ai-sdk';
const TARGET_US = 200;
const WORKFLOW = fileURLToPath(new URL('../examples/workflows/customer-support.yaml', import.meta.url));

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: 5, reasoning: undefined } };
const answer = 'Could you tell me more about the problem with your order?';

/** A conversation of a few turns, as an agent's prompt is by its third or fourth call. */
const messages: ModelMessage[] = [
  { role: 'user', content: 'Hi, my order arrived broken.' },
  { role: 'assistant', content: 'Hello! How can I help you today?' },
  { role: 'user', content: 'The mug in order 1042 is cracked. I would like my money back, please.' },
];

/** Runs the adapter benchmarks; `npm run bench -- adapters-ai-sdk` runs only these (once registered in run.ts). */
export async function aiSdkAdapterBench(): Promise<BenchRow[]> {
  const monitor = createMonitor({ workflow: await loadWorkflow(WORKFLOW) });
  const mock = () =>
    new MockLanguageModelV3({
      doGenerate: async () => ({ content: [{ type: 'text', text: answer }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }),
      doStream: async () => ({
        stream: new ReadableStream({
          start(controller) {
            controller.enqueue({ type: 'stream-start', warnings: [] });
            controller.enqueue({ type: 'text-start', id: 't' });
            for (const word of answer.split(/(?<= )/)) controller.enqueue({ type: 'text-delta', id: 't', delta: word });
            controller.enqueue({ type: 'text-end', id: 't' });
            controller.enqueue({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage });
            controller.close();
          },
        }),
      }),
    });
  const mocks = [mock(), mock(), mock()] as const;
  const models = {
    plain: mocks[0],
    // No id given: each call is placed by its conversation. The bench sends the same messages every time and never
    // the answer back, so each call is a new conversation (its history hashed, a new session made).
    monitored: wrapLanguageModel({ model: mocks[1], middleware: panoptesMiddleware({ monitor }) }),
    // The session named: what an app that passes an id pays.
    named: wrapLanguageModel({ model: mocks[2], middleware: panoptesMiddleware({ monitor, sessionId: 'bench' }) }),
  };
  const system = 'You are the support agent of an online shop. Be brief.';
  const calls = {
    generateText: (model: keyof typeof models) => generateText({ model: models[model], system, messages }),
    streamText: async (model: keyof typeof models) => (await streamText({ model: models[model], system, messages }).consumeStream(), undefined),
  };

  const rows: BenchRow[] = [];
  for (const [host, call] of Object.entries(calls)) {
    const times = { plain: [] as number[], monitored: [] as number[], named: [] as number[], added: [] as number[], addedNamed: [] as number[] };
    const orders = [
      ['plain', 'monitored', 'named'],
      ['monitored', 'named', 'plain'],
      ['named', 'plain', 'monitored'],
    ] as const;
    const timed = async (model: keyof typeof models) => {
      const start = performance.now();
      await call(model);
      return (performance.now() - start) * 1000;
    };
    await measureAsync(
      async (index) => {
        const pair = {} as Record<keyof typeof models, number>;
        for (const model of orders[index % 3]!) pair[model] = await timed(model);
        times.plain.push(pair.plain);
        times.monitored.push(pair.monitored);
        times.named.push(pair.named);
        times.added.push(pair.monitored - pair.plain);
        times.addedNamed.push(pair.named - pair.plain);
        // MockLanguageModelV3 records every call; drop them so memory does not grow with the sample count.
        if (index % 500 === 0) for (const mock of mocks) mock.doGenerateCalls.splice(0), mock.doStreamCalls.splice(0);
      },
      { samples: 3000, warmup: 300 },
    );
    const [plain, monitored, added, addedNamed] = [summary(times.plain), summary(times.monitored), summary(times.added), summary(times.addedNamed)];
    rows.push({ suite: SUITE, name: `${host} over MockLanguageModelV3, without Panoptes (baseline)`, ...plain });
    rows.push({ suite: SUITE, name: `${host} over MockLanguageModelV3, with panoptesMiddleware`, ...monitored });
    rows.push({
      suite: SUITE,
      name: `${host}: time added per model call by panoptesMiddleware, no session named (a new conversation each call) (paired)`,
      ...added,
      extra: { baselineP50Us: Math.round(plain.p50Us), monitoredP50Us: Math.round(monitored.p50Us) },
      target: `added p50 <= ${TARGET_US} us`,
      met: added.p50Us <= TARGET_US,
    });
    rows.push({
      suite: SUITE,
      name: `${host}: time added per model call by panoptesMiddleware, the session named (paired)`,
      ...addedNamed,
      extra: { baselineP50Us: Math.round(plain.p50Us), namedP50Us: Math.round(summary(times.named).p50Us) },
      target: `added p50 <= ${TARGET_US} us`,
      met: addedNamed.p50Us <= TARGET_US,
    });
  }
  return rows;
}

/** Percentiles of the recorded times, in the harness's row shape (the warm-up calls are not among them). */
function summary(values: number[]) {
  const sorted = Float64Array.from(values.slice(-3000)).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { samples: sorted.length, p50Us: at(0.5), p99Us: at(0.99), meanUs: sorted.reduce((sum, value) => sum + value, 0) / sorted.length };
}
