import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors/index.js';
import { createVectorIndexWith } from '../../src/vector-index/create.js';
import { loadHnswlib } from '../../src/vector-index/hnswlib.js';
import { createVectorIndex, DEFAULT_HNSW_THRESHOLD, type VectorIndexOptions } from '../../src/vector-index/index.js';
import { randomVectors } from './random.js';

const unavailable = () => 'hnswlib-node is not usable (Cannot find module hnswlib-node)';

function recordingLogger() {
  const warnings: string[] = [];
  return { logger: { warn: (message: string) => warnings.push(message) }, warnings };
}

describe('createVectorIndex', () => {
  it('starts with brute force and moves to HNSW once it holds more than hnswThreshold vectors', () => {
    const vectors = randomVectors(30, 8);
    const index = createVectorIndex({ dimensions: 8, hnswThreshold: 20 });
    const before: string[][] = [];
    vectors.forEach((vector, i) => {
      index.add(`v${i}`, vector);
      if (i === 19) {
        expect(index.kind).toBe('brute-force');
        before.push(...vectors.slice(0, 5).map((query) => index.search(query, 3).map((match) => match.id)));
      }
    });
    expect(index.kind).toBe('hnsw');
    expect(index.size).toBe(30);
    // Everything added before the move is still found, by the same ids.
    for (let i = 0; i < 30; i++) expect(index.search(vectors[i]!, 1)[0]!.id).toBe(`v${i}`);
    expect(index.remove('v3')).toBe(true);
    expect(index.has('v3')).toBe(false);
    expect(index.size).toBe(29);
    expect(before[0]![0]).toBe('v0');
  });

  it('defaults to auto, cosine and the documented threshold', () => {
    const index = createVectorIndex({ dimensions: 4 });
    expect(index.kind).toBe('brute-force');
    expect(index.dimensions).toBe(4);
    expect(DEFAULT_HNSW_THRESHOLD).toBe(256);
  });

  it('honours an explicit kind', () => {
    expect(createVectorIndex({ dimensions: 4, kind: 'hnsw' }).kind).toBe('hnsw');
    const exact = createVectorIndex({ dimensions: 4, kind: 'brute-force', hnswThreshold: 0 });
    exact.add('a', [1, 0, 0, 0]);
    exact.add('b', [0, 1, 0, 0]);
    expect(exact.kind).toBe('brute-force');
  });

  it('falls back to brute force with a logged reason when hnswlib-node is unavailable (auto)', () => {
    const { logger, warnings } = recordingLogger();
    const index = createVectorIndexWith({ dimensions: 4, hnswThreshold: 2, logger }, unavailable);
    for (let i = 0; i < 5; i++) index.add(`v${i}`, [i, 1, 0, 0]);
    expect(index.kind).toBe('brute-force');
    expect(index.search([4, 1, 0, 0], 1)[0]!.id).toBe('v4');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/HNSW is unavailable; staying with exact brute-force search\. hnswlib-node is not usable/);
  });

  it('falls back to brute force with a logged reason when hnswlib-node is unavailable (hnsw), once per logger', () => {
    const { logger, warnings } = recordingLogger();
    const options: VectorIndexOptions = { dimensions: 4, kind: 'hnsw', logger };
    expect(createVectorIndexWith(options, unavailable).kind).toBe('brute-force');
    expect(createVectorIndexWith(options, unavailable).kind).toBe('brute-force');
    expect(warnings).toEqual(['panoptes: HNSW index unavailable, using exact brute-force search instead. hnswlib-node is not usable (Cannot find module hnswlib-node).']);
  });

  it('loads hnswlib-node once and reports the real add-on', () => {
    expect(typeof loadHnswlib()).toBe('function');
    expect(loadHnswlib()).toBe(loadHnswlib());
  });

  it.each([
    [{ dimensions: 0 }, 'dimensions'],
    [{ dimensions: 2.5 }, 'dimensions'],
    [{ dimensions: 4, space: 'l2' as never }, 'space'],
    [{ dimensions: 4, kind: 'annoy' as never }, 'kind'],
    [{ dimensions: 4, hnswThreshold: -1 }, 'hnswThreshold'],
    [{ dimensions: 4, hnsw: { m: 0 } }, 'hnsw.m'],
    [{ dimensions: 4, hnsw: { efSearch: 1.5 } }, 'hnsw.efSearch'],
    [{ dimensions: 4, hnsw: { efConstruction: -3 } }, 'hnsw.efConstruction'],
    [{ dimensions: 4, hnsw: { randomSeed: 0.5 } }, 'hnsw.randomSeed'],
  ])('rejects %j at construction', (options, parameter) => {
    expect(() => createVectorIndex(options)).toThrow(InvalidOptionError);
    expect(() => createVectorIndex(options)).toThrow(expect.objectContaining({ parameter }));
  });
});
