import { describe, expect, it } from 'vitest';
import { assertEmbedding, InvalidEmbeddingError, withValidation, type Embedder } from '../../src/embed/index.js';
import { InvalidOptionError } from '../../src/errors/index.js';

const returning = (query: unknown, documents: unknown): Embedder => ({
  embedQuery: async () => query as number[],
  embedDocuments: async () => documents as number[][],
});

async function rejection(promise: Promise<unknown>): Promise<InvalidEmbeddingError> {
  try {
    await promise;
  } catch (error) {
    if (InvalidEmbeddingError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('assertEmbedding', () => {
  it('accepts an array of finite numbers of the expected length', () => {
    expect(() => assertEmbedding([0.1, -0.2, 0], 3)).not.toThrow();
    expect(() => assertEmbedding([1])).not.toThrow();
  });

  it.each([
    ['NaN', [0.1, Number.NaN], 'not-finite'],
    ['Infinity', [Number.POSITIVE_INFINITY, 0], 'not-finite'],
    ['a string component', [0.1, '0.2'], 'not-finite'],
    ['a wrong length', [0.1, 0.2, 0.3], 'wrong-length'],
    ['an empty vector', [], 'wrong-length'],
    ['null', null, 'not-a-vector'],
    ['an object', { 0: 1, length: 1 }, 'not-a-vector'],
  ])('rejects %s', (_, value, problem) => {
    expect(() => assertEmbedding(value, 2)).toThrow(expect.objectContaining({ problem, code: 'INVALID_EMBEDDING' }));
  });
});

describe('withValidation', () => {
  it('passes valid output through unchanged', async () => {
    const embedder = withValidation(returning([1, 0], [[1, 0], [0, 1]]), { dimensions: 2 });
    expect(await embedder.embedQuery('a')).toEqual([1, 0]);
    expect(await embedder.embedDocuments(['a', 'b'])).toEqual([[1, 0], [0, 1]]);
  });

  it('rejects NaN and wrong lengths with InvalidEmbeddingError, naming the text', async () => {
    const nan = await rejection(withValidation(returning([Number.NaN, 1], [])).embedQuery('a'));
    expect(nan.problem).toBe('not-finite');
    const short = await rejection(withValidation(returning([], [[1, 0], [1]]), { dimensions: 2 }).embedDocuments(['a', 'b']));
    expect(short).toMatchObject({ problem: 'wrong-length', index: 1, expected: 2, received: 1 });
  });

  it('rejects a batch with a different number of vectors than texts', async () => {
    const error = await rejection(withValidation(returning([], [[1, 0]])).embedDocuments(['a', 'b']));
    expect(error).toMatchObject({ problem: 'wrong-count', expected: 2, received: 1 });
    expect((await rejection(withValidation(returning([], 'oops')).embedDocuments(['a']))).problem).toBe('wrong-count');
  });

  it('learns the length from the first vector when dimensions is omitted', async () => {
    let length = 3;
    const embedder = withValidation({ embedQuery: async () => new Array(length).fill(0.5), embedDocuments: async () => [] });
    await embedder.embedQuery('a');
    length = 4;
    expect((await rejection(embedder.embedQuery('b'))).problem).toBe('wrong-length');
  });

  it('validates its options at construction', () => {
    expect(() => withValidation(returning([], []), { dimensions: 0 })).toThrow(InvalidOptionError);
  });
});
