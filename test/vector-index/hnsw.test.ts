import { describe, expect, it } from 'vitest';
import { cosineSimilarity } from '../../src/embed/index.js';
import { createBruteForceIndex, createVectorIndex, hnswAvailability, type VectorIndex } from '../../src/vector-index/index.js';
import { clusteredVectors, randomVectors } from './random.js';

// hnswlib-node is an optional dependency, but this repository installs and builds it: a missing add-on here is a
// broken install, not a reason to skip.
const hnsw = (dimensions: number, options: Parameters<typeof createVectorIndex>[0]['hnsw'] = {}) => createVectorIndex({ dimensions, kind: 'hnsw', hnsw: options });

function recallAt(k: number, approximate: VectorIndex, exact: VectorIndex, queries: number[][]): number {
  let found = 0;
  for (const query of queries) {
    const truth = new Set(exact.search(query, k).map((match) => match.id));
    found += approximate.search(query, k).filter((match) => truth.has(match.id)).length;
  }
  return found / (k * queries.length);
}

function fill(index: VectorIndex, vectors: number[][]): VectorIndex {
  vectors.forEach((vector, i) => index.add(`v${i}`, vector));
  return index;
}

describe('HNSW index', () => {
  it('is available in this repository', () => {
    expect(hnswAvailability()).toEqual({ available: true });
    expect(hnsw(4).kind).toBe('hnsw');
  });

  it.each([
    ['random', randomVectors(3000, 64, 7)],
    ['clustered', clusteredVectors(3000, 384, 30, 11)],
  ])('agrees with brute force on %s data: recall@10 at least 0.95', (_, vectors) => {
    const dimensions = vectors[0]!.length;
    const approximate = fill(hnsw(dimensions), vectors);
    const exact = fill(createBruteForceIndex(dimensions), vectors);
    const queries = (dimensions === 64 ? randomVectors(100, 64, 99) : clusteredVectors(100, 384, 30, 98));
    const recall = recallAt(10, approximate, exact, queries);
    expect(recall).toBeGreaterThanOrEqual(0.95);
    expect(recallAt(1, approximate, exact, queries)).toBeGreaterThanOrEqual(0.95);
  });

  it('reports the same cosine similarities as cosineSimilarity, best first', () => {
    const vectors = randomVectors(500, 32, 3);
    const index = fill(hnsw(32), vectors);
    for (const query of randomVectors(20, 32, 4)) {
      const matches = index.search(query, 5);
      expect(matches).toHaveLength(5);
      for (const match of matches) {
        expect(match.similarity).toBeCloseTo(cosineSimilarity(vectors[Number(match.id.slice(1))]!, query), 5);
      }
      const similarities = matches.map((match) => match.similarity);
      expect(similarities).toEqual([...similarities].sort((a, b) => b - a));
    }
  });

  it('returns fewer results than k when it holds fewer vectors, and none when empty', () => {
    const index = hnsw(3);
    expect(index.search([1, 0, 0], 5)).toEqual([]);
    index.add('a', [1, 0, 0]);
    index.add('b', [0, 1, 0]);
    expect(index.search([1, 0, 0], 10).map((match) => match.id)).toEqual(['a', 'b']);
    expect(index.search([1, 0, 0], 0)).toEqual([]);
  });

  it('removes and replaces vectors, reusing the freed slots', () => {
    const index = hnsw(3);
    index.add('a', [1, 0, 0]);
    index.add('b', [0, 1, 0]);
    expect(index.remove('a')).toBe(true);
    expect(index.remove('a')).toBe(false);
    expect(index.has('a')).toBe(false);
    expect(index.search([1, 0, 0], 2).map((match) => match.id)).toEqual(['b']);
    index.add('b', [0, 0, 1]);
    expect(index.size).toBe(1);
    expect(index.search([0, 0, 1], 1)[0]).toEqual({ id: 'b', similarity: expect.closeTo(1, 5) });
    index.add('a', [1, 0, 0]);
    expect(index.search([1, 0, 0], 1)[0]!.id).toBe('a');
  });

  it('grows past its initial capacity, with many removals in between', () => {
    const vectors = randomVectors(1000, 16, 5);
    const index = hnsw(16);
    vectors.forEach((vector, i) => {
      index.add(`v${i}`, vector);
      if (i % 3 === 0) index.remove(`v${i}`);
    });
    expect(index.size).toBe(1000 - 334);
    for (const i of [1, 500, 998]) expect(index.search(vectors[i]!, 1)[0]!.id).toBe(`v${i}`);
    expect(index.search(vectors[3]!, 1)[0]!.id).not.toBe('v3');
  });

  it('validates vectors like the brute-force index', () => {
    const index = hnsw(3);
    expect(() => index.add('a', [1, 2])).toThrow(expect.objectContaining({ problem: 'wrong-length' }));
    expect(() => index.search([Number.NaN, 0, 0], 1)).toThrow(expect.objectContaining({ problem: 'not-finite' }));
    expect(index.size).toBe(0);
  });
});
