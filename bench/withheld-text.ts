/**
 * What withholding costs a compliant answer, and what `textPolicy: 'hold'` costs the first token.
 *
 * The workflow is the example support workflow with `no_internal_info` made critical and its intervention a
 * `block:`, so every text answer is checked for withholding (and every stream watched). Each row pairs one call with
 * `onViolatingText: 'replace'` (the default) against the same call with `'deliver'` (which checks nothing), made
 * moments apart, and reports the median of the paired differences: the added cost of `replace` on an answer that
 * breaks nothing, to hold against the per-call targets of the adapter suites (200 us). Each call is a new
 * conversation, so each answer moves the session (greeting to identify_issue) and the check previews a real move.
 *
 * The first-token rows stream the answer a word a delta, about a millisecond apart (a timer's tick), and time the
 * first text chunk the caller reads with `stream` and with `hold`: `hold` delivers nothing until the answer is
 * classified, so its first token comes with the last.
 */
import { readFileSync } from 'node:fs';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { generateText, streamText, wrapLanguageModel, type LanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createAgent } from 'langchain';
import { createMonitor, parseWorkflow } from 'panoptes';
import { panoptesMiddleware as aiSdkMiddleware } from 'panoptes/ai-sdk';
import { panoptesMiddleware as langchainMiddleware } from 'panoptes/langchain';
import { measureAsync, summarize, type BenchRow } from './harness.js';
import { scriptedModel } from './support-agent.js';

const SUITE = 'withheld-text';
const TARGET_US = 200;
const SAMPLES = 2000;
const WARMUP = 200;

const workflow = parseWorkflow(
  readFileSync(new URL('../examples/workflows/customer-support.yaml', import.meta.url), 'utf8')
    .replace('    severity: error\n    intervention: keep_internal', '    severity: critical\n    intervention: keep_internal')
    .replace('keep_internal: "inject: ', 'keep_internal: "block: '),
);
const answer = 'Could you tell me more about the problem with your order?';
const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: 5, reasoning: undefined } };
const quiet = { warn: () => {} };

/** A mock model answering `answer`; its stream sends one word a delta, `gapMs` apart (0: all at once). */
function mockModel(gapMs = 0) {
  return new MockLanguageModelV3({
    doGenerate: async () => ({ content: [{ type: 'text', text: answer }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }),
    doStream: async () => ({
      stream: new ReadableStream({
        async start(controller) {
          controller.enqueue({ type: 'stream-start', warnings: [] });
          controller.enqueue({ type: 'text-start', id: 't' });
          for (const word of answer.split(/(?<= )/)) {
            if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
            controller.enqueue({ type: 'text-delta', id: 't', delta: word });
          }
          controller.enqueue({ type: 'text-end', id: 't' });
          controller.enqueue({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage });
          controller.close();
        },
      }),
    }),
  });
}

/** Median of paired differences between two variants of one call, alternating which goes first. */
async function paired(name: string, call: (variant: 'deliver' | 'replace', index: number) => PromiseLike<unknown>): Promise<BenchRow> {
  const added: number[] = [];
  const base: number[] = [];
  const timed = async (variant: 'deliver' | 'replace', index: number) => {
    const start = performance.now();
    await call(variant, index);
    return (performance.now() - start) * 1000;
  };
  await measureAsync(
    async (index) => {
      const first = index % 2 === 0 ? 'deliver' : 'replace';
      const a = await timed(first, index);
      const b = await timed(first === 'deliver' ? 'replace' : 'deliver', index);
      const [deliver, replace] = first === 'deliver' ? [a, b] : [b, a];
      added.push(replace - deliver);
      base.push(deliver);
    },
    { samples: SAMPLES, warmup: WARMUP },
  );
  const summary = summarize(added.slice(-SAMPLES));
  return { suite: SUITE, name, samples: SAMPLES, ...summary, extra: { deliverP50Us: Math.round(summarize(base.slice(-SAMPLES)).p50Us) }, target: `added p50 <= ${TARGET_US} us`, met: summary.p50Us <= TARGET_US };
}

export async function withheldTextBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const monitors = { deliver: createMonitor({ workflow, logger: quiet }), replace: createMonitor({ workflow, logger: quiet }) };

  // The core: one afterModel on a compliant answer, with and without `withhold`.
  rows.push(await paired('monitor.afterModel, compliant text answer: withhold over none (paired)', (variant, index) => monitors[variant].afterModel(`s${index}`, { content: answer, toolCalls: [] }, { withhold: variant === 'replace' })));

  // The AI SDK: each call a new conversation (no session named, the same prompt every time).
  const aiSdkModels = (extra: { textPolicy?: 'stream' | 'hold' } = {}) => ({
    deliver: wrapLanguageModel({ model: mockModel(), middleware: aiSdkMiddleware({ monitor: monitors.deliver, onViolatingText: 'deliver', logger: quiet }) }),
    replace: wrapLanguageModel({ model: mockModel(), middleware: aiSdkMiddleware({ monitor: monitors.replace, logger: quiet, ...extra }) }),
  });
  const system = 'You are the support agent of an online shop. Be brief.';
  const prompt = 'The mug in order 1042 is cracked.';
  const generating = aiSdkModels();
  rows.push(await paired("generateText, compliant answer: 'replace' over 'deliver' (paired)", (variant) => generateText({ model: generating[variant], system, prompt })));
  for (const textPolicy of ['stream', 'hold'] as const) {
    const streaming: Record<'deliver' | 'replace', LanguageModel> = aiSdkModels({ textPolicy });
    rows.push(await paired(`streamText, compliant answer: 'replace' with textPolicy '${textPolicy}' over 'deliver' (paired)`, (variant) => streamText({ model: streaming[variant], system, prompt }).consumeStream()));
  }

  // LangChain createAgent: one model call answering in text.
  const agentOf = (variant: 'deliver' | 'replace') =>
    createAgent({ model: scriptedModel([() => new AIMessage(answer)], SAMPLES * 3), tools: [], systemPrompt: system, middleware: [langchainMiddleware({ monitor: monitors[variant], onViolatingText: variant, logger: quiet })] });
  const agents = { deliver: agentOf('deliver'), replace: agentOf('replace') };
  rows.push(await paired("createAgent, compliant text answer: 'replace' over 'deliver' (paired)", (variant, index) => agents[variant].invoke({ messages: [new HumanMessage(prompt)] }, { configurable: { thread_id: `${variant}-${index}` } })));

  // The first token with each policy, over a stream that takes a timer tick per word.
  const firstToken = { stream: [] as number[], hold: [] as number[] };
  const slow = { stream: aiSdkMiddleware({ monitor: monitors.replace, logger: quiet }), hold: aiSdkMiddleware({ monitor: monitors.replace, textPolicy: 'hold', logger: quiet }) };
  for (let sample = 0; sample < 40; sample++) {
    for (const policy of ['stream', 'hold'] as const) {
      const start = performance.now();
      const reader = streamText({ model: wrapLanguageModel({ model: mockModel(1), middleware: slow[policy] }), system, prompt }).textStream.getReader();
      await reader.read();
      firstToken[policy].push((performance.now() - start) * 1000);
      while (!(await reader.read()).done);
    }
  }
  for (const policy of ['stream', 'hold'] as const) {
    rows.push({ suite: SUITE, name: `streamText, first text chunk with textPolicy '${policy}', ${answer.split(' ').length} deltas a timer tick (about 1 ms) apart`, samples: 40, ...summarize(firstToken[policy]) });
  }
  return rows;
}
