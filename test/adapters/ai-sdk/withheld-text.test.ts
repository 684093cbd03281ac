import { generateText, readUIMessageStream, streamText, wrapLanguageModel, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { panoptesMiddleware, type PanoptesMiddlewareOptions } from '../../../adapters/ai-sdk/index.js';
import { createMonitor, DEFAULT_USER_MESSAGE, parseWorkflow } from '../../../src/index.js';
import { recordingLogger, say, sequenceModel, systemOf } from './fixtures.js';

/** A customer-facing support workflow: a leak of internal notes is critical, and its intervention a `block:`. */
const workflow = parseWorkflow(`
name: support
states:
  - { name: greeting, initial: true, classification: { patterns: ["\\\\bhello\\\\b"] } }
  - { name: identify_issue, classification: { patterns: ["tell me more"] } }
  - { name: leak, classification: { patterns: ["internal notes"] } }
transitions:
  - { from: greeting, to: identify_issue }
constraints:
  - { name: no_leak, type: never, target: leak, severity: critical, intervention: no_leak }
interventions:
  no_leak: "block: Never reveal internal notes."
`);

const SYSTEM = 'You are a support agent.';
const LEAK = 'Sure. Here are the internal notes: the customer is difficult.';
const SECRET = 'difficult';
const SAFE = 'Could you tell me more about the order?';
const GUIDANCE = `${SYSTEM}\n\n[WORKFLOW GUIDANCE]\nNever reveal internal notes.`;

function setup(script: string[], options: Omit<PanoptesMiddlewareOptions, 'monitor'> = {}) {
  const monitor = createMonitor({ workflow, logger: recordingLogger() });
  const mock = sequenceModel(...script.map((text) => say(text)));
  const model = wrapLanguageModel({ model: mock, middleware: panoptesMiddleware({ monitor, sessionId: 's1', ...options }) });
  return { monitor, mock, model };
}

describe('generateText: an answer that breaks a critical rule never reaches the caller', () => {
  it('replaces its text: the violation is recorded as withheld, and the next call carries the guidance', async () => {
    const { monitor, mock, model } = setup([LEAK, SAFE]);
    const question: ModelMessage = { role: 'user', content: 'What do your notes say about me?' };
    const first = await generateText({ model, system: SYSTEM, messages: [question] });

    expect(first.text).toBe(DEFAULT_USER_MESSAGE);
    expect(first.finishReason).toBe('content-filter');
    expect(JSON.stringify(first.response.messages)).not.toContain(SECRET);
    const report = (await monitor.report('s1'))!;
    expect(report.violations).toEqual([expect.objectContaining({ constraint: 'no_leak', state: 'leak', withheld: true })]);
    expect(report.trace).toEqual(['greeting']);

    const second = await generateText({ model, system: SYSTEM, messages: [question, ...first.response.messages, { role: 'user', content: 'My order is broken.' }] });
    expect(systemOf(mock.doGenerateCalls[1]!.prompt)).toBe(GUIDANCE);
    expect(second.text).toBe(SAFE);
  });

  it("with onViolatingText: 'regenerate', calls the model once more with the guidance: a compliant answer goes out", async () => {
    const { monitor, mock, model } = setup([LEAK, SAFE], { onViolatingText: 'regenerate' });
    const result = await generateText({ model, system: SYSTEM, prompt: 'Notes?' });

    expect(result.text).toBe(SAFE);
    expect(mock.doGenerateCalls).toHaveLength(2);
    expect(systemOf(mock.doGenerateCalls[1]!.prompt)).toBe(GUIDANCE);
    expect(JSON.stringify(mock.doGenerateCalls[1]!.prompt)).not.toContain(SECRET);
    expect((await monitor.report('s1'))!).toMatchObject({ trace: ['greeting', 'identify_issue'], violations: [expect.objectContaining({ withheld: true })] });
  });

  it("with onViolatingText: 'regenerate', replaces the answer when the second one leaks too", async () => {
    const { monitor, mock, model } = setup([LEAK, LEAK, SAFE], { onViolatingText: 'regenerate' });
    const result = await generateText({ model, system: SYSTEM, prompt: 'Notes?' });

    expect(result.text).toBe(DEFAULT_USER_MESSAGE);
    expect(mock.doGenerateCalls).toHaveLength(2);
    expect((await monitor.report('s1'))!.violations).toHaveLength(2);
  });

  it("with onViolatingText: 'deliver', lets it through as before", async () => {
    const { model } = setup([LEAK], { onViolatingText: 'deliver' });
    expect((await generateText({ model, prompt: 'Notes?' })).text).toBe(LEAK);
  });
});

/** Every text chunk a `streamText` caller reads, in order. */
async function chunksOf(stream: AsyncIterable<string>): Promise<string[]> {
  const chunks: string[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe('streamText: the stream policies', () => {
  it("textPolicy 'stream' (the default): passes text on at once, and cuts the stream where the leak is recognised", async () => {
    const { monitor, model } = setup([LEAK]);
    const result = streamText({ model, system: SYSTEM, prompt: 'Notes?' });
    const chunks = await chunksOf(result.textStream);

    // The words before the one that completes the pattern went out; nothing from it on did.
    expect(chunks.join('')).toBe(`Sure. Here are the internal \n\n${DEFAULT_USER_MESSAGE}`);
    expect(chunks.join('')).not.toContain(SECRET);
    expect(await result.finishReason).toBe('content-filter');
    expect((await monitor.report('s1'))!.violations).toEqual([expect.objectContaining({ constraint: 'no_leak', withheld: true })]);
  });

  it("textPolicy 'stream' passes a compliant answer through unchanged", async () => {
    const { monitor, model } = setup([SAFE]);
    const result = streamText({ model, prompt: 'My order?' });
    expect((await chunksOf(result.textStream)).join('')).toBe(SAFE);
    expect(await result.finishReason).toBe('stop');
    expect((await monitor.report('s1'))!.trace).toEqual(['greeting', 'identify_issue']);
  });

  it("textPolicy 'hold': the caller reads only the replacement", async () => {
    const { monitor, model } = setup([LEAK], { textPolicy: 'hold' });
    const result = streamText({ model, system: SYSTEM, prompt: 'Notes?' });
    expect(await chunksOf(result.textStream)).toEqual([DEFAULT_USER_MESSAGE]);
    expect(await result.finishReason).toBe('content-filter');
    expect((await monitor.report('s1'))!.violations).toEqual([expect.objectContaining({ withheld: true })]);
  });

  it("textPolicy 'hold' releases a compliant answer whole once it is classified", async () => {
    const { model } = setup([SAFE], { textPolicy: 'hold' });
    const result = streamText({ model, prompt: 'My order?' });
    expect((await chunksOf(result.textStream)).join('')).toBe(SAFE);
    expect(await result.finishReason).toBe('stop');
  });

  it("textPolicy 'hold' with 'regenerate': streams the compliant second answer, or the replacement", async () => {
    const fixed = setup([LEAK, SAFE], { textPolicy: 'hold', onViolatingText: 'regenerate' });
    const result = streamText({ model: fixed.model, system: SYSTEM, prompt: 'Notes?' });
    expect((await chunksOf(result.textStream)).join('')).toBe(SAFE);
    expect(fixed.mock.doStreamCalls).toHaveLength(2);
    expect(systemOf(fixed.mock.doStreamCalls[1]!.prompt)).toBe(GUIDANCE);
    expect((await fixed.monitor.report('s1'))!.trace).toEqual(['greeting', 'identify_issue']);

    const stubborn = setup([LEAK, LEAK, SAFE], { textPolicy: 'hold', onViolatingText: 'regenerate' });
    const replaced = streamText({ model: stubborn.model, prompt: 'Notes?' });
    expect(await chunksOf(replaced.textStream)).toEqual([DEFAULT_USER_MESSAGE]);
    expect(stubborn.mock.doStreamCalls).toHaveLength(2);
  });

  it('useChat receives the replacement (the UI message stream), with either policy', async () => {
    for (const textPolicy of ['hold', 'stream'] as const) {
      const { model } = setup([LEAK], { textPolicy });
      const result = streamText({ model, prompt: 'Notes?' });
      let last: Awaited<ReturnType<typeof readUIMessageStream>> extends AsyncIterable<infer M> ? M : never = undefined as never;
      for await (const message of readUIMessageStream({ stream: result.toUIMessageStream() })) last = message;
      const text = last.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
      expect(text).toContain(DEFAULT_USER_MESSAGE);
      expect(text).not.toContain(SECRET);
    }
  });

  it("textPolicy 'hold' past its byte bound falls back to streaming and counts a miss", async () => {
    const { monitor, model } = setup([SAFE], { textPolicy: 'hold', holdMaxBytes: 10 });
    const result = streamText({ model, prompt: 'My order?' });
    expect((await chunksOf(result.textStream)).join('')).toBe(SAFE);
    expect(monitor.misses()).toEqual({ hold: 1 });
  });

  it("textPolicy 'hold' past its byte bound still cuts a leak it recognises", async () => {
    const { monitor, model } = setup([LEAK], { textPolicy: 'hold', holdMaxBytes: 10 });
    const chunks = await chunksOf(streamText({ model, prompt: 'Notes?' }).textStream);
    expect(chunks.join('')).not.toContain(SECRET);
    expect(chunks.join('').endsWith(DEFAULT_USER_MESSAGE)).toBe(true);
    expect(monitor.misses()).toEqual({ hold: 1 });
  });
});
