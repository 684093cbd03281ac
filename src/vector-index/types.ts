import { InvalidEmbeddingError } from '../embed/errors.js';

/** One search result. */
export interface VectorMatch {
  /** The id the vector was added under. */
  id: string;
  /** Cosine similarity to the query, in [-1, 1]; 0 when either vector is zero. */
  similarity: number;
}

/** Which algorithm answers searches: exact scan, or approximate graph search with `hnswlib-node`. */
export type VectorIndexKind = 'brute-force' | 'hnsw';

/**
 * A set of vectors searchable by cosine similarity. Synchronous: both implementations answer in memory, and the
 * classifier calls it on the model-call path.
 */
export interface VectorIndex {
  /** The algorithm in use now; an `auto` index changes from `brute-force` to `hnsw` as it grows. */
  readonly kind: VectorIndexKind;
  /** Length of every vector. */
  readonly dimensions: number;
  /** Vectors currently in the index. */
  readonly size: number;
  /**
   * Adds a vector under `id`, replacing any vector already there. The vector is copied.
   * @throws {InvalidEmbeddingError} when its length is not `dimensions` or a component is not finite.
   */
  add(id: string, vector: ArrayLike<number>): void;
  /**
   * The `k` vectors most similar to `vector`, most similar first; fewer when the index holds fewer.
   * @throws {InvalidEmbeddingError} when its length is not `dimensions` or a component is not finite.
   */
  search(vector: ArrayLike<number>, k: number): VectorMatch[];
  /** Removes the vector under `id`; returns whether there was one. */
  remove(id: string): boolean;
  /** Whether a vector is stored under `id`. */
  has(id: string): boolean;
}

/** Rejects vectors the index cannot compare, so a bad embedder fails at the boundary rather than as NaN scores. */
export function assertVector(vector: ArrayLike<number>, dimensions: number): void {
  if (vector.length !== dimensions) {
    throw new InvalidEmbeddingError({
      problem: 'wrong-length',
      message: `Vector of length ${vector.length} given to an index of ${dimensions} dimensions; were they made by different embedders?`,
      expected: dimensions,
      received: vector.length,
    });
  }
  for (let i = 0; i < dimensions; i++) {
    if (!Number.isFinite(vector[i])) {
      throw new InvalidEmbeddingError({ problem: 'not-finite', message: `Vector component ${i} is ${vector[i]}; expected finite numbers.`, index: i });
    }
  }
}

/** Validates `k` for `search`: a non-negative integer (0 gives no results). */
export function assertK(k: number): void {
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`search(vector, k) needs a non-negative integer k, got ${k}.`);
}
