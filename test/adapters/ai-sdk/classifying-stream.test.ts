import { describe, expect, it } from 'vitest';
import { classifyingStream } from '../../../adapters/ai-sdk/classifying-stream.js';
import type { ResponseContent, StreamPart } from '../../../adapters/ai-sdk/host-types.js';
import { callTool, readableOf, streamOf } from './fixtures.js';

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

  it('passes a cancel on to the source', async () => {
    let cancelled: unknown;
    const source = new ReadableStream<StreamPart>({ pull: () => new Promise(() => {}), cancel: (reason) => void (cancelled = reason) });
    await classifyingStream(source, 's1', async () => {}).cancel('user left');
    expect(cancelled).toBe('user left');
  });
});
