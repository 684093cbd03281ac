import { InvalidEmbeddingError } from './errors.js';

/**
 * Cosine similarity of two vectors of the same length, in [-1, 1]. A zero vector (the lexical embedding of an empty
 * text) is similar to nothing: the result is 0 rather than NaN, so a threshold never matches it.
 * @param a A vector.
 * @param b A vector of the same length.
 * @throws {InvalidEmbeddingError} `wrong-length` when the lengths differ.
 * @example
 * cosineSimilarity([1, 0], [1, 1]) // 0.7071...
 */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) {
    throw new InvalidEmbeddingError({
      problem: 'wrong-length',
      message: `Cannot compare vectors of different lengths (${a.length} and ${b.length}); were they made by different embedders?`,
      expected: a.length,
      received: b.length,
    });
  }
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  // Squares of components below about 1e-154 underflow; such vectors are rescaled and compared again.
  if (normA < TINY || normB < TINY) return tinyCosine(a, b);
  // Rounding can push the ratio of two identical vectors just past 1.
  return Math.max(-1, Math.min(1, dot / (Math.sqrt(normA) * Math.sqrt(normB))));
}

const TINY = 1e-280;

/** Cosine of vectors whose squared norm underflows: divide each by its largest component first. */
function tinyCosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let maxA = 0;
  let maxB = 0;
  for (let i = 0; i < a.length; i++) {
    maxA = Math.max(maxA, Math.abs(a[i]!));
    maxB = Math.max(maxB, Math.abs(b[i]!));
  }
  if (maxA === 0 || maxB === 0) return 0;
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]! / maxA;
    const y = b[i]! / maxB;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return Math.max(-1, Math.min(1, dot / (Math.sqrt(normA) * Math.sqrt(normB))));
}

/**
 * Scales a vector to unit length in place and returns it; a zero vector stays zero.
 * @param vector The vector to normalise; modified.
 */
export function normalizeInPlace<T extends { length: number; [index: number]: number }>(vector: T): T {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  if (sum === 0) return vector;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! * scale;
  return vector;
}
