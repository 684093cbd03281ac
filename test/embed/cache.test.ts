import { describe, expect, it } from 'vitest';
import { withCache, type Embedder } from '../../src/embed/index.js';
import { InvalidOptionError } from '../../src/errors/index.js';
import { deferred, recordingEmbedder } from './helpers.js';

describe('withCache', () => {
  it('embeds a repeated query once', async () => {
    const { embedder, calls, vectorOf } = recordingEmbedder();
    const cached = withCache(embedder);
    expect(await cached.embedQuery('hello')).toEqual(vectorOf('hello'));
    expect(await cached.embedQuery('hello')).toEqual(vectorOf('hello'));
    expect(calls).toEqual([{ method: 'embedQuery', texts: ['hello'] }]);
    expect([cached.hits, cached.misses, cached.size]).toEqual([1, 1, 1]);
  });

  it('sends only the misses of a batch, deduplicated, in one call, and keeps the order of the answer', async () => {
    const { embedder, calls, vectorOf } = recordingEmbedder();
    const cached = withCache(embedder);
    await cached.embedDocuments(['a', 'b']);
    const vectors = await cached.embedDocuments(['c', 'a', 'd', 'c', 'b']);
    expect(vectors).toEqual(['c', 'a', 'd', 'c', 'b'].map(vectorOf));
    expect(calls).toEqual([
      { method: 'embedDocuments', texts: ['a', 'b'] },
      { method: 'embedDocuments', texts: ['c', 'd'] },
    ]);
    expect(await cached.embedDocuments(['a', 'b', 'c', 'd'])).toEqual(['a', 'b', 'c', 'd'].map(vectorOf));
    expect(calls).toHaveLength(2);
  });

  it('does not call the embedder for an empty or fully cached batch', async () => {
    const { embedder, calls } = recordingEmbedder();
    const cached = withCache(embedder);
    expect(await cached.embedDocuments([])).toEqual([]);
    expect(calls).toEqual([]);
  });

  it('caches queries apart from documents, since some embedders treat them differently', async () => {
    const { embedder, calls } = recordingEmbedder();
    const cached = withCache(embedder);
    await cached.embedDocuments(['x']);
    await cached.embedQuery('x');
    expect(calls.map((call) => call.method)).toEqual(['embedDocuments', 'embedQuery']);
  });

  it('evicts the least recently used text and stays bounded', async () => {
    const { embedder, calls } = recordingEmbedder();
    const cached = withCache(embedder, { maxEntries: 2 });
    await cached.embedQuery('a');
    await cached.embedQuery('b');
    await cached.embedQuery('a'); // a is now the most recent
    await cached.embedQuery('c'); // evicts b
    expect(cached.size).toBe(2);
    await cached.embedQuery('a');
    await cached.embedQuery('b');
    expect(calls.map((call) => call.texts[0])).toEqual(['a', 'b', 'c', 'b']);
    for (let i = 0; i < 100; i++) await cached.embedQuery(`t${i}`);
    expect(cached.size).toBe(2);
  });

  it('returns copies, so a caller cannot corrupt the cache', async () => {
    const { embedder, vectorOf } = recordingEmbedder();
    const cached = withCache(embedder);
    const first = await cached.embedQuery('a');
    first[0] = -999;
    const [document] = await cached.embedDocuments(['a']);
    document![0] = -999;
    expect(await cached.embedQuery('a')).toEqual(vectorOf('a'));
    expect(await cached.embedDocuments(['a'])).toEqual([vectorOf('a')]);
  });

  it('shares a call in flight instead of embedding the same text twice', async () => {
    const gate = deferred<number[][]>();
    let calls = 0;
    const slow: Embedder = {
      embedQuery: async () => [1, 0],
      embedDocuments: async (texts) => {
        calls++;
        expect(texts).toEqual(['a']);
        return gate.promise;
      },
    };
    const cached = withCache(slow);
    const first = cached.embedDocuments(['a']);
    const second = cached.embedDocuments(['a', 'a']);
    gate.resolve([[1, 2]]);
    expect(await first).toEqual([[1, 2]]);
    expect(await second).toEqual([[1, 2], [1, 2]]);
    expect(calls).toBe(1);
  });

  it('does not cache failures', async () => {
    let fail = true;
    const flaky: Embedder = {
      embedQuery: async () => {
        if (fail) throw new Error('model down');
        return [1];
      },
      embedDocuments: async (texts) => {
        if (fail) throw new Error('model down');
        return texts.map(() => [1]);
      },
    };
    const cached = withCache(flaky);
    await expect(cached.embedQuery('a')).rejects.toThrow('model down');
    await expect(cached.embedDocuments(['a', 'b'])).rejects.toThrow('model down');
    fail = false;
    expect(await cached.embedQuery('a')).toEqual([1]);
    expect(await cached.embedDocuments(['a', 'b'])).toEqual([[1], [1]]);
    expect(cached.size).toBe(3);
  });

  it('clear() forgets everything', async () => {
    const { embedder, calls } = recordingEmbedder();
    const cached = withCache(embedder);
    await cached.embedQuery('a');
    cached.clear();
    expect(cached.size).toBe(0);
    await cached.embedQuery('a');
    expect(calls).toHaveLength(2);
  });

  it('validates maxEntries at construction', () => {
    const { embedder } = recordingEmbedder();
    for (const maxEntries of [0, -1, 1.5, Number.NaN]) {
      expect(() => withCache(embedder, { maxEntries })).toThrow(InvalidOptionError);
    }
  });
});
