import { describe, expect, it, vi } from 'vitest';
import { classifyingStream } from '../../../adapters/ai-sdk/classifying-stream.js';
import type { ResponseContent, StreamPart } from '../../../adapters/ai-sdk/host-types.js';
import type { TextChecks } from '../../../adapters/ai-sdk/classifying-stream.js';
import type { WithheldResponse } from '../../../src/index.js';
import { callTool, readableOf, streamOf } from './fixtures.js';

const finish = streamOf(callTool('issue_refund', 'r1')).at(-1)!;
const call = (toolCallId: string, providerExecuted?: boolean): StreamPart => ({ type: 'tool-call', toolCallId, toolName: 'issue_refund', input: '{}', ...(providerExecuted ? { providerExecuted } : {}) });
const label = (part: StreamPart) => (part.type === 'tool-call' || part.type === 'tool-result' ? `${part.type} ${part.toolCallId}` : part.type);

async function readAll(stream: ReadableStream<StreamPart>): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe('classifyingStream', () => {
  it('passes every chunk on, classifies once, and marks the finish chunk with the session', async () => {
    const classified: Array<readonly ResponseContent[]> = [];
    const source = streamOf(callTool('issue_refund', 'r1', { orderId: '42' }, 'Refunding now.'));
    const parts = await readAll(classifyingStream(readableOf(source), 's1', async (_id, content) => void classified.push(content)));
    expect(parts.map((part) => part.type)).toEqual(source.map((part) => part.type));
    expect(parts.at(-1)).toMatchObject({ type: 'finish', providerMetadata: { panoptes: { sessionId: 's1' } } });
    expect(classified).toEqual([[{ type: 'text', text: 'Refunding now.' }, expect.objectContaining({ type: 'tool-call', toolCallId: 'r1' })]]);
  });

  it('fails with the source error, without classifying a response that never finished', async () => {
    let calls = 0;
    const failing = new ReadableStream<StreamPart>({
      start(controller) {
        controller.enqueue({ type: 'text-delta', id: 't', delta: 'Hel' });
        controller.error(new Error('connection reset'));
      },
    });
    await expect(readAll(classifyingStream(failing, 's1', async () => void calls++))).rejects.toThrow('connection reset');
    expect(calls).toBe(0);
  });

  it('holds client tool calls until finish and releases them, classified, just before it', async () => {
    const classified: Array<readonly ResponseContent[]> = [];
    const source: StreamPart[] = [{ type: 'text-delta', id: 't', delta: 'Refunding.' }, call('c1'), { type: 'tool-input-start', id: 'c2', toolName: 'issue_refund' }, call('c2'), finish];
    const parts = await readAll(classifyingStream(readableOf(source), 's1', async (_id, content) => void classified.push(content)));
    expect(parts.map(label)).toEqual(['text-delta', 'tool-input-start', 'tool-call c1', 'tool-call c2', 'finish']);
    expect(classified).toEqual([[{ type: 'text', text: 'Refunding.' }, call('c1'), call('c2')]]);
  });

  it('passes provider-executed calls on at once, so their results stay behind them', async () => {
    const result: StreamPart = { type: 'tool-result', toolCallId: 'p1', toolName: 'web_search', result: { hits: 0 } };
    const parts = await readAll(classifyingStream(readableOf([call('p1', true), result, finish]), 's1', async () => {}));
    expect(parts.map(label)).toEqual(['tool-call p1', 'tool-result p1', 'finish']);
  });

  it('classifies and releases at close when no finish came', async () => {
    const classified: Array<readonly ResponseContent[]> = [];
    const source: StreamPart[] = [{ type: 'text-delta', id: 't', delta: 'Partial' }, call('c1')];
    const parts = await readAll(classifyingStream(readableOf(source), 's1', async (_id, content) => void classified.push(content)));
    expect(parts.map(label)).toEqual(['text-delta', 'tool-call c1']);
    expect(classified).toEqual([[{ type: 'text', text: 'Partial' }, call('c1')]]);
  });

  it('closes only once classification is done', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const reader = classifyingStream(readableOf(streamOf(callTool('issue_refund', 'r1'))), 's1', () => gate).getReader();
    let closed = false;
    const drained = (async () => {
      while (!(await reader.read()).done);
      closed = true;
    })();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(closed).toBe(false);
    open();
    await drained;
    expect(closed).toBe(true);
  });

  it('still closes when a classifier rejects', async () => {
    const source = streamOf(callTool('issue_refund', 'r1'));
    const parts = await readAll(classifyingStream(readableOf(source), 's1', () => Promise.reject(new Error('store down'))));
    expect(parts).toHaveLength(source.length);
  });

  it('reads the model to its end and classifies it even before anyone reads the stream', async () => {
    const classified: Array<readonly ResponseContent[]> = [];
    classifyingStream(readableOf(streamOf(callTool('issue_refund', 'r1'))), 's1', async (_id, content) => void classified.push(content));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(classified).toHaveLength(1);
  });

  it('passes a cancel on to the source, and classifies nothing after it', async () => {
    let calls = 0;
    const source = new ReadableStream<StreamPart>({
      start: (controller) => controller.enqueue({ type: 'text-delta', id: 't', delta: 'Hel' }),
      pull: () => new Promise(() => {}),
    });
    const stream = classifyingStream(source, 's1', async () => void calls++);
    const reader = stream.getReader();
    expect((await reader.read()).value).toMatchObject({ delta: 'Hel' });
    await reader.cancel('user left');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(calls).toBe(0);
  });

  it('passes a cancel on to the source', async () => {
    let cancelled: unknown;
    const source = new ReadableStream<StreamPart>({ pull: () => new Promise(() => {}), cancel: (reason) => void (cancelled = reason) });
    await classifyingStream(source, 's1', async () => {}).cancel('user left');
    expect(cancelled).toBe('user left');
  });
});

describe('classifyingStream with text checks', () => {
  const withheld: WithheldResponse = { state: 'leak', constraints: ['no_leak'], userMessage: 'Sorry, I cannot help with that.', reason: 'never leak' };
  const textChecks = (policy: TextChecks['policy'], bounds: Partial<TextChecks> = {}): TextChecks => ({
    watch: { states: ['leak'], text: (delta) => (delta.includes('SECRET') ? { state: 'leak', pattern: 'SECRET' } : null), overflowed: vi.fn() },
    policy,
    maxBytes: 1000,
    maxMs: 1000,
    ...bounds,
  });
  const words = (...deltas: string[]): StreamPart[] => [{ type: 'text-start', id: 't' }, ...deltas.map((delta): StreamPart => ({ type: 'text-delta', id: 't', delta })), { type: 'text-end', id: 't' }, finish];
  const textOf = (parts: readonly StreamPart[]) => parts.map((part) => (part.type === 'text-delta' ? part.delta : '')).join('');

  it("'hold' past its time bound passes on what it held and streams the rest, counting the miss", async () => {
    const text = textChecks('hold', { maxMs: 20 });
    let release!: () => void;
    const late = new Promise<void>((resolve) => (release = resolve));
    const source = new ReadableStream<StreamPart>({
      async start(controller) {
        controller.enqueue({ type: 'text-start', id: 't' });
        controller.enqueue({ type: 'text-delta', id: 't', delta: 'Could you ' });
        await late;
        for (const part of words('tell me more?').slice(1)) controller.enqueue(part);
        controller.close();
      },
    });
    const reader = classifyingStream(source, 's1', async () => undefined, { text }).getReader();
    expect((await reader.read()).value).toEqual({ type: 'text-start', id: 't' }); // released by the time bound
    expect(text.watch.overflowed).toHaveBeenCalledWith('time');
    release();
    const rest: StreamPart[] = [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) rest.push(next.value);
    expect(textOf(rest)).toBe('Could you tell me more?');
    expect(rest.at(-1)).toMatchObject({ type: 'finish', finishReason: finish.type === 'finish' ? finish.finishReason : undefined });
  });

  it("'stream' cuts where the watch recognises a withheld state, and ends the open block with the replacement", async () => {
    const classified: boolean[] = [];
    const answered: Array<readonly ResponseContent[]> = [];
    const parts = await readAll(
      classifyingStream(readableOf(words('Here ', 'is the SECRET ', 'plan.')), 's1', async (_id, _content, withhold) => (classified.push(withhold), withheld), { text: textChecks('stream'), answered: (content) => void answered.push(content) }),
    );
    expect(parts.map((part) => part.type)).toEqual(['text-start', 'text-delta', 'text-delta', 'text-end', 'finish']);
    expect(textOf(parts)).toBe('Here \n\nSorry, I cannot help with that.');
    expect(parts.at(-1)).toMatchObject({ finishReason: { unified: 'content-filter', raw: 'panoptes-withheld' }, providerMetadata: { panoptes: { sessionId: 's1', withheld: { state: 'leak', constraints: ['no_leak'] } } } });
    expect(classified).toEqual([true]);
    expect(answered).toEqual([[{ type: 'text', text: 'Here \n\nSorry, I cannot help with that.' }]]);
  });

  it("'hold' passes the second response on instead when retry gives one, and nothing of the first", async () => {
    const second = readableOf([{ type: 'stream-start', warnings: [] }, ...words('Could you tell me more?')]);
    const parts = await readAll(classifyingStream(readableOf([{ type: 'stream-start', warnings: [] }, ...words('Here is the SECRET plan.')]), 's1', async () => withheld, { text: { ...textChecks('hold'), retry: async () => second } }));
    expect(parts.map((part) => part.type)).toEqual(['stream-start', 'text-start', 'text-delta', 'text-end', 'finish']);
    expect(textOf(parts)).toBe('Could you tell me more?');
  });

  it('a cancel while holding ends the hold quietly', async () => {
    const text = textChecks('hold', { maxMs: 10 });
    const source = new ReadableStream<StreamPart>({ start: (controller) => controller.enqueue({ type: 'text-delta', id: 't', delta: 'Hel' }), pull: () => new Promise(() => {}) });
    await classifyingStream(source, 's1', async () => undefined, { text }).cancel('user left');
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(text.watch.overflowed).not.toHaveBeenCalled();
  });
});
