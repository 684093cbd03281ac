import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cosineSimilarity, InvalidEmbeddingError } from '../../src/embed/index.js';
import { createBruteForceIndex } from '../../src/vector-index/index.js';
import { randomVectors } from './random.js';

/** The obvious implementation: score everything with cosineSimilarity and sort. */
function naiveSearch(entries: Map<string, number[]>, query: number[], k: number) {
  return [...entries]
    .map(([id, vector]) => ({ id, similarity: cosineSimilarity(vector, query) }))
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, k);
}

// Components in thousandths: the index stores float32, which flushes the tiny doubles fast-check likes to zero.
const component6 = fc.array(fc.integer({ min: -1000, max: 1000 }).map((n) => n / 1000), { minLength: 6, maxLength: 6 });

describe('createBruteForceIndex', () => {
  it('finds exactly what scoring every vector finds, with the same similarities', () => {
    fc.assert(
      fc.property(
        fc.array(component6, { minLength: 1, maxLength: 40 }),
        component6,
        fc.integer({ min: 0, max: 50 }),
        (vectors, query, k) => {
          const index = createBruteForceIndex(6);
          const entries = new Map(vectors.map((vector, i) => [`v${i}`, vector]));
          for (const [id, vector] of entries) index.add(id, vector);
          const found = index.search(query, k);
          const expected = naiveSearch(entries, query, k);
          expect(found).toHaveLength(expected.length);
          found.forEach((match, i) => {
            expect(match.similarity).toBeCloseTo(expected[i]!.similarity, 5);
            // Ties may come in any order, so compare each id's own similarity rather than the id at each rank.
            expect(cosineSimilarity(entries.get(match.id)!, query)).toBeCloseTo(match.similarity, 5);
          });
        },
      ),
    );
  });

  it('returns the best match first, ranks by cosine rather than dot product', () => {
    const index = createBruteForceIndex(2);
    index.add('long-but-off', [10, 5]);
    index.add('short-and-aligned', [0.1, 0]);
    index.add('opposite', [-1, 0]);
    expect(index.search([1, 0], 3).map((match) => match.id)).toEqual(['short-and-aligned', 'long-but-off', 'opposite']);
    expect(index.search([1, 0], 1)[0]!.similarity).toBeCloseTo(1, 6);
    expect(index.search([1, 0], 3)[2]!.similarity).toBeCloseTo(-1, 6);
  });

  it('replaces the vector of an existing id, removes ids, and keeps the rest searchable', () => {
    const index = createBruteForceIndex(2);
    index.add('a', [1, 0]);
    index.add('b', [0, 1]);
    index.add('c', [1, 1]);
    index.add('a', [-1, 0]);
    expect(index.size).toBe(3);
    expect(index.search([-1, 0], 1)[0]!.id).toBe('a');
    expect(index.remove('a')).toBe(true);
    expect(index.remove('a')).toBe(false);
    expect(index.has('a')).toBe(false);
    expect(index.size).toBe(2);
    expect(index.search([1, 1], 5).map((match) => match.id)).toEqual(['c', 'b']);
  });

  it('grows past its initial capacity and survives removing everything', () => {
    const index = createBruteForceIndex(8);
    const vectors = randomVectors(100, 8);
    vectors.forEach((vector, i) => index.add(String(i), vector));
    expect(index.size).toBe(100);
    expect(index.search(vectors[42]!, 1)[0]).toEqual({ id: '42', similarity: expect.closeTo(1, 5) });
    for (let i = 0; i < 100; i++) index.remove(String(i));
    expect(index.size).toBe(0);
    expect(index.search(vectors[0]!, 3)).toEqual([]);
  });

  it('gives a zero vector similarity 0 to everything', () => {
    const index = createBruteForceIndex(2);
    index.add('zero', [0, 0]);
    index.add('x', [1, 0]);
    expect(index.search([0, 0], 2).map((match) => match.similarity)).toEqual([0, 0]);
    expect(index.search([1, 0], 2)).toEqual([
      { id: 'x', similarity: expect.closeTo(1, 6) },
      { id: 'zero', similarity: 0 },
    ]);
  });

  it('rejects vectors of the wrong length or with NaN, and a bad k', () => {
    const index = createBruteForceIndex(3);
    expect(() => index.add('a', [1, 2])).toThrow(expect.objectContaining({ problem: 'wrong-length', expected: 3, received: 2 }));
    expect(() => index.add('a', [1, Number.NaN, 0])).toThrow(expect.objectContaining({ problem: 'not-finite' }));
    expect(() => index.search([1, 2, 3, 4], 1)).toSatisfy(() => {
      try {
        index.search([1, 2, 3, 4], 1);
        return false;
      } catch (error) {
        return InvalidEmbeddingError.isInstance(error);
      }
    });
    expect(() => index.search([1, 2, 3], -1)).toThrow(RangeError);
    expect(() => index.search([1, 2, 3], 1.5)).toThrow(RangeError);
    expect(index.size).toBe(0);
  });

  it('copies vectors on insertion', () => {
    const index = createBruteForceIndex(2);
    const vector = [1, 0];
    index.add('a', vector);
    vector[0] = -1;
    expect(index.search([1, 0], 1)[0]!.similarity).toBeCloseTo(1, 6);
  });
});
