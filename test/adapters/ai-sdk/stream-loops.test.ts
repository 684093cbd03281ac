import { generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import type { StreamPart } from '../../../adapters/ai-sdk/host-types.js';
import { panoptesMiddleware } from '../../../adapters/ai-sdk/index.js';
import { createMonitor, LoopDetectedError, type LoopReport } from '../../../src/index.js';
import { callTool, recordingLogger, say, streamOf, systemOf, workflow } from './fixtures.js';

/**
 * Issue 15, item 8: the text checks on the AI SDK's stream as it arrives, through a real `streamText`. A model that
 * starts chanting is cut short (its provider stream cancelled), the response so far is classified, the loop is
 * reported and the next call carries the hint; code and tables stream whole.
 */

const CHANT = 'I need to double-check the refund policy before I can answer you. ';
const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: 5, reasoning: undefined } };

/** A provider stream of `deltas` that records how far it was read and whether it was cancelled. */
function providerStream(deltas: readonly string[], { reasoning = false } = {}) {
  const stats = { sent: 0, cancelled: false };
  const kind = reasoning ? 'reasoning' : 'text';
  const parts: StreamPart[] = [{ type: 'stream-start', warnings: [] }, { type: `${kind}-start`, id: 'b' }];
  for (const delta of deltas) parts.push({ type: `${kind}-delta`, id: 'b', delta });
  parts.push({ type: `${kind}-end`, id: 'b' }, { type: 'finish', finishReason: { unified: 'length', raw: 'length' }, usage });
  let index = 0;
  const stream = new ReadableStream<StreamPart>({
    pull(controller) {
      const part = parts[index++];
      if (part === undefined) return controller.close();
      if (part.type === 'text-delta' || part.type === 'reasoning-delta') stats.sent++;
      controller.enqueue(part);
    },
    cancel() {
      stats.cancelled = true;
    },
  });
  return { stream, stats, total: deltas.length };
}

function setup(first: ReturnType<typeof providerStream>, options: { cutLoopingStreams?: boolean } = {}) {
  const monitor = createMonitor({ workflow, loops: true, logger: recordingLogger() });
  const reports: LoopReport[] = [];
  monitor.on('loop', ({ report }) => void reports.push(report));
  let calls = 0;
  const mock = new MockLanguageModelV3({
    doStream: async () => (calls++ === 0 ? { stream: first.stream } : { stream: readable(streamOf(say('The policy allows a refund within 30 days.'))) }),
  });
  const model = wrapLanguageModel({ model: mock, middleware: panoptesMiddleware({ monitor, sessionId: 's1', ...options }) });
  return { monitor, reports, mock, model };
}

const readable = (parts: StreamPart[]) => new ReadableStream<StreamPart>({ start: (c) => (parts.forEach((p) => c.enqueue(p)), c.close()) });
const words = (text: string) => text.split(/(?<= )/);

describe('panoptesMiddleware cuts a chanting stream short', () => {
  it('cancels the provider once the response repeats itself, classifies it, and hints on the next call', async () => {
    const provider = providerStream(words(CHANT.repeat(200)));
    const { reports, mock, model, monitor } = setup(provider);
    const first = streamText({ model, prompt: 'Can I get a refund?' });
    const text = await first.text;

    expect(provider.stats.cancelled).toBe(true);
    expect(provider.stats.sent).toBeLessThan(provider.total / 2);
    // Cut within one rescan (4 KB of new text) of the tenth copy, not at the end of the 13 KB response.
    expect(text.length).toBeLessThanOrEqual(CHANT.length * 10 + 4_096 + 20);
    expect(text.startsWith(CHANT.repeat(10))).toBe(true); // what was streamed is what the client got
    expect(await first.finishReason).toBe('other');
    expect((await first.providerMetadata)?.panoptes).toEqual({ sessionId: 's1', loop: { kind: 'repeated-text', detail: expect.stringContaining('repeats the same passage') } });

    expect(reports.map((report) => [report.kind, report.action])).toEqual([['repeated-text', 'hint']]);
    const second = streamText({ model, prompt: 'Can I get a refund?', messages: undefined });
    await second.text;
    expect(systemOf(mock.doStreamCalls[1]!.prompt)).toContain('repeats the same passage');
    expect(monitor.misses()).toEqual({});
  });

  it('cuts a reasoning stream that keeps coming back to one line', async () => {
    const thinking = Array.from({ length: 40 }, (_, i) => `Option ${i} looks possible.\nWait, let me re-read the fare rules.\n`).join('');
    const provider = providerStream(thinking.match(/.{1,9}/gs)!, { reasoning: true });
    const { reports, model } = setup(provider);
    const result = streamText({ model, prompt: 'Which fare can I change?' });
    await result.text;
    expect(provider.stats.cancelled).toBe(true);
    expect(await result.reasoningText).toContain('Wait, let me re-read the fare rules.');
    expect(reports.map((report) => report.kind)).toEqual(['repeated-line']);
  });

  it('streams code and tables whole, however repetitive', async () => {
    const code = `Here are the tests:\n\`\`\`ts\n${'expect(refund(order)).toBe(true);\n'.repeat(300)}\`\`\`\n| id | ok |\n|---|---|\n${'| 1 | yes |\n'.repeat(300)}`;
    const provider = providerStream(code.match(/.{1,16}/gs)!);
    const { reports, model } = setup(provider);
    const result = streamText({ model, prompt: 'Write the tests.' });
    expect(await result.text).toBe(code);
    expect(provider.stats.cancelled).toBe(false);
    expect(await result.finishReason).toBe('length');
    expect(reports).toEqual([]);
  });

  it('leaves the stream whole with cutLoopingStreams: false, and still reports the loop from the finished response', async () => {
    const provider = providerStream(words(CHANT.repeat(200)));
    const { reports, model } = setup(provider, { cutLoopingStreams: false });
    const result = streamText({ model, prompt: 'Can I get a refund?' });
    expect(await result.text).toBe(CHANT.repeat(200));
    expect(provider.stats.cancelled).toBe(false);
    expect(reports.map((report) => report.kind)).toEqual(['repeated-text']);
  });
});

describe('panoptesMiddleware tells the loop detector which tools the call offered', () => {
  it('hints with the offered tools at the 2nd call to a tool that does not exist, and stops at the 3rd', async () => {
    const monitor = createMonitor({ workflow, loops: true, logger: recordingLogger() });
    const reports: LoopReport[] = [];
    monitor.on('loop', ({ report }) => void reports.push(report));
    let calls = 0;
    const mock = new MockLanguageModelV3({ doGenerate: async () => callTool('lookup_order_history', `c${calls++}`, { order: '42' }) });
    const model = wrapLanguageModel({ model: mock, middleware: panoptesMiddleware({ monitor, sessionId: 's1' }) });
    const noInput = jsonSchema<Record<string, never>>({ type: 'object', properties: {}, additionalProperties: false });
    const tools = { verify_identity: tool({ description: 'Verify the customer', inputSchema: noInput, execute: async () => 'ok' }) };
    const result = generateText({ model, tools, prompt: 'Where is order 42?', stopWhen: stepCountIs(6) });
    await expect(result).rejects.toThrow(LoopDetectedError);
    expect(mock.doGenerateCalls).toHaveLength(3); // the 4th call is refused
    expect(reports.slice(0, 2).map((report) => [report.kind, report.action])).toEqual([
      ['unknown-tool', 'hint'],
      ['unknown-tool', 'stop'],
    ]);
    expect(systemOf(mock.doGenerateCalls[2]!.prompt)).toContain('verify_identity');
  });
});
