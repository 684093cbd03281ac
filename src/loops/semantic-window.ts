import type { Ring } from './ring.js';

/** A step's embedding in a session's window. @internal */
export interface WindowEntry {
  /** Unit length, so a dot product is the cosine similarity. */
  vector: Float32Array;
  /** Hash of the step's text and calls: a literal repeat has the same key. */
  key: number;
  step: number;
  /** When the step was observed, from the detector's clock. */
  at: number;
  /**
   * The loop this step belongs to: the cluster of the earlier step it repeats, else its own step number. A loop
   * found again on its next turn is then the same loop, and escalates.
   */
  cluster: number;
}

/** The most similar earlier step. @internal */
export interface WindowMatch {
  step: number;
  similarity: number;
  cluster: number;
}

/**
 * Copies an embedding into a unit-length `Float32Array`: normalised once on insertion, compared by dot product
 * ever after, and half the memory of a number array. A zero vector stays zero, similar to nothing.
 * @internal
 */
export function unitVector(vector: readonly number[]): Float32Array {
  let sum = 0;
  for (const component of vector) sum += component * component;
  const unit = new Float32Array(vector.length);
  if (sum === 0 || !Number.isFinite(sum)) {
    // Squares overflow for components above ~1e154: scale by the largest component first.
    const largest = vector.reduce((max, component) => Math.max(max, Math.abs(component)), 0);
    if (largest === 0) return unit;
    return unitVector(vector.map((component) => component / largest));
  }
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) unit[i] = vector[i]! * scale;
  return unit;
}

/**
 * The short window: drops the entries older than `ttlMs`, then returns the entry most similar to `vector` (exact
 * cosine over at most `window` entries).
 *
 * Literal repeats of the step (same `key`) are skipped: repeating a step word for word is the structural checks'
 * business, with their own thresholds (4 identical calls and results, 3 errors, 5 cycles). Matching them here would
 * flag the second `run_tests()` of an edit-and-test cycle, the false positive that makes users turn detectors off.
 * The semantic check is for what they cannot see: the same intent in other words. Entries of another length (an
 * embedder swapped mid-session) are skipped too.
 * @internal
 */
export function bestInWindow(window: Ring<WindowEntry>, vector: Float32Array, key: number, now: number, ttlMs: number): WindowMatch | null {
  while (window.length > 0 && now - window.oldest()!.at >= ttlMs) window.shift();
  let best: WindowMatch | null = null;
  for (let index = 0; index < window.length; index++) {
    const entry = window.at(index)!;
    if (entry.key === key || entry.vector.length !== vector.length) continue;
    let dot = 0;
    for (let i = 0; i < vector.length; i++) dot += entry.vector[i]! * vector[i]!;
    const similarity = Math.max(-1, Math.min(1, dot));
    if (best === null || similarity > best.similarity) best = { step: entry.step, similarity, cluster: entry.cluster };
  }
  return best;
}
