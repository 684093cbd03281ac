import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cosineSimilarity, InvalidEmbeddingError, normalizeInPlace } from '../../src/embed/index.js';

const vector = (length: number) => fc.array(fc.double({ min: -100, max: 100, noNaN: true }), { minLength: length, maxLength: length });

describe('cosineSimilarity', () => {
  it('is 1 for the same direction, 0 for orthogonal, -1 for opposite', () => {
    expect(cosineSimilarity([1, 2, 3], [2, 4, 6])).toBeCloseTo(1, 12);
    expect(cosineSimilarity([1, 0], [0, 5])).toBe(0);
    expect(cosineSimilarity([1, 1], [-1, -1])).toBeCloseTo(-1, 12);
    expect(cosineSimilarity([1, 0], [1, 1])).toBeCloseTo(Math.SQRT1_2, 12);
  });

  it('is 0, not NaN, when a vector is zero', () => {
    expect(cosineSimilarity([0, 0, 0], [1, 2, 3])).toBe(0);
    expect(cosineSimilarity([0, 0], [0, 0])).toBe(0);
  });

  it('rejects vectors of different lengths with a typed error', () => {
    const error = (() => {
      try {
        cosineSimilarity([1, 2], [1, 2, 3]);
      } catch (caught) {
        return caught;
      }
    })();
    expect(InvalidEmbeddingError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ problem: 'wrong-length', expected: 2, received: 3, code: 'INVALID_EMBEDDING' });
  });

  it('is symmetric, bounded and scale-invariant', () => {
    fc.assert(
      fc.property(vector(8), vector(8), fc.double({ min: 0.01, max: 1000, noNaN: true }), (a, b, scale) => {
        const ab = cosineSimilarity(a, b);
        expect(ab).toBeGreaterThanOrEqual(-1);
        expect(ab).toBeLessThanOrEqual(1);
        expect(cosineSimilarity(b, a)).toBeCloseTo(ab, 12);
        expect(cosineSimilarity(a.map((x) => x * scale), b)).toBeCloseTo(ab, 9);
      }),
    );
  });

  it('handles vectors whose squared components underflow', () => {
    expect(cosineSimilarity([0, 1e-162], [1e-162, 0])).toBe(0);
    expect(cosineSimilarity([1e-200, 1e-200], [3, 3])).toBeCloseTo(1, 12);
    expect(cosineSimilarity([-4e-165, 0], [1.5e-162, 0])).toBeCloseTo(-1, 12);
    const thousandths = fc.array(fc.integer({ min: -1000, max: 1000 }).map((n) => n / 1000), { minLength: 4, maxLength: 4 });
    fc.assert(
      fc.property(thousandths, thousandths, (a, b) => {
        expect(cosineSimilarity(a.map((x) => x * 1e-160), b)).toBeCloseTo(cosineSimilarity(a, b), 9);
      }),
    );
  });

  it('accepts typed arrays', () => {
    expect(cosineSimilarity(Float32Array.from([1, 0]), [1, 0])).toBe(1);
  });
});

describe('normalizeInPlace', () => {
  it('scales to unit length in place and leaves a zero vector alone', () => {
    const v = [3, 4];
    expect(normalizeInPlace(v)).toBe(v);
    expect(v[0]).toBeCloseTo(0.6, 12);
    expect(v[1]).toBeCloseTo(0.8, 12);
    expect(normalizeInPlace([0, 0])).toEqual([0, 0]);
  });
});
