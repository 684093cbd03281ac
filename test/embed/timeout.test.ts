import { describe, expect, it } from 'vitest';
import type { Timers } from '../../src/clock/index.js';
import { EmbedderTimeoutError, withTimeout, type Embedder } from '../../src/embed/index.js';
import { InvalidOptionError } from '../../src/errors/index.js';
import { deferred } from './helpers.js';

/** Timers that fire only when the test says so, and show which are still pending. */
function manualTimers() {
  const pending = new Map<number, { callback: () => void; ms: number }>();
  let next = 0;
  const timers: Timers = {
    setTimeout: (callback, ms) => {
      pending.set(++next, { callback, ms });
      return next;
    },
    clearTimeout: (handle) => {
      pending.delete(handle as number);
    },
  };
  const fireAll = () => {
    for (const [handle, { callback }] of [...pending]) {
      pending.delete(handle);
      callback();
    }
  };
  return { timers, pending, fireAll };
}

function heldEmbedder() {
  const query = deferred<number[]>();
  const documents = deferred<number[][]>();
  const embedder: Embedder = { embedQuery: () => query.promise, embedDocuments: () => documents.promise };
  return { embedder, query, documents };
}

describe('withTimeout', () => {
  it('passes a fast answer through and clears its timer', async () => {
    const { timers, pending } = manualTimers();
    const { embedder, query } = heldEmbedder();
    const call = withTimeout(embedder, { timeoutMs: 50, timers }).embedQuery('a');
    expect([...pending.values()].map((timer) => timer.ms)).toEqual([50]);
    query.resolve([1, 2]);
    expect(await call).toEqual([1, 2]);
    expect(pending.size).toBe(0);
  });

  it('rejects with EmbedderTimeoutError when the budget runs out, and ignores the late answer', async () => {
    const { timers, pending, fireAll } = manualTimers();
    const { embedder, documents } = heldEmbedder();
    const call = withTimeout(embedder, { timeoutMs: 50, timers }).embedDocuments(['a']);
    fireAll();
    const error = await call.catch((caught: unknown) => caught);
    expect(EmbedderTimeoutError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'EMBEDDER_TIMEOUT', timeoutMs: 50, operation: 'embedDocuments' });
    expect((error as Error).message).toBe('Embedder embedDocuments did not answer within 50 ms.');
    documents.resolve([[1]]);
    expect(pending.size).toBe(0);
  });

  it('does not turn a failure after the timeout into an unhandled rejection', async () => {
    const { timers, fireAll } = manualTimers();
    const { embedder, query } = heldEmbedder();
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      const call = withTimeout(embedder, { timers }).embedQuery('a');
      fireAll();
      await expect(call).rejects.toSatisfy(EmbedderTimeoutError.isInstance);
      query.reject(new Error('late failure'));
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', listener);
    }
  });

  it('passes the embedder’s own errors through, synchronous ones included, and clears the timer', async () => {
    const { timers, pending } = manualTimers();
    const throwing: Embedder = {
      embedQuery: () => {
        throw new Error('sync failure');
      },
      embedDocuments: async () => {
        throw new Error('async failure');
      },
    };
    const wrapped = withTimeout(throwing, { timers });
    await expect(wrapped.embedQuery('a')).rejects.toThrow('sync failure');
    await expect(wrapped.embedDocuments(['a'])).rejects.toThrow('async failure');
    expect(pending.size).toBe(0);
  });

  it('works with the real timers: a hung embedder rejects after about timeoutMs', async () => {
    const hung: Embedder = { embedQuery: () => new Promise(() => {}), embedDocuments: () => new Promise(() => {}) };
    const start = performance.now();
    await expect(withTimeout(hung, { timeoutMs: 20 }).embedQuery('a')).rejects.toSatisfy(EmbedderTimeoutError.isInstance);
    expect(performance.now() - start).toBeGreaterThanOrEqual(15);
  });

  it('validates timeoutMs at construction', () => {
    const { embedder } = heldEmbedder();
    for (const timeoutMs of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => withTimeout(embedder, { timeoutMs })).toThrow(InvalidOptionError);
    }
  });
});
