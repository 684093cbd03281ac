import type { Logger } from '../monitor/fail-open.js';
import { createVectorIndex, type HnswOptions, type VectorIndex } from '../vector-index/index.js';
import type { LongWindowOptions } from './options.js';
import type { WindowMatch } from './semantic-window.js';

/**
 * HNSW tuning of the long window, lighter than the vector index's defaults: every step adds a point, so insertion is
 * on the model-call path, and a loop's step sits very close to the step it repeats (cosine > 0.95), where a short
 * candidate list already finds it. Measured in bench/loops.ts (recall of planted paraphrases at 100,000 steps).
 */
export const DEFAULT_LONG_WINDOW_HNSW: Readonly<Required<Pick<HnswOptions, 'efConstruction' | 'efSearch'>>> = Object.freeze({ efConstruction: 64, efSearch: 40 });

interface LongEntry {
  id: string;
  generation: Generation;
  /** Hash of the step's text and calls. */
  key: number;
  step: number;
  at: number;
  cluster: number;
}

/** One block of `size` steps in an index of its own. */
interface Generation {
  index: VectorIndex;
  entries: Map<string, LongEntry>;
  newestAt: number;
}

/** A session's long window. @internal */
export interface LongWindow {
  /** Drops expired steps, then returns the most similar earlier step that is not a literal repeat (same `key`). */
  search(vector: Float32Array, key: number, now: number, ttlMs: number): WindowMatch | null;
  /** Adds a step; a literal repeat of a step already held refreshes that one instead. */
  add(vector: Float32Array, key: number, step: number, at: number, cluster: number): void;
  /** Steps held. */
  readonly size: number;
}

/** Candidates taken from each generation: past a literal repeat and an expired step to the next one. */
const CANDIDATES = 3;

/**
 * Creates a long window: at least the session's last `size` steps, in blocks ("generations") of `size` steps, each
 * with an index of its own; when a third block starts, the oldest is dropped whole. So the window holds between
 * `size` and `2 x size` steps, and no single point is ever deleted: deleting from an HNSW graph and reusing the slot
 * costs about three insertions (hnswlib repairs the neighbours), which would put a full window over its budget.
 *
 * Each session has its own window: a shared index would return other sessions' (and tenants') neighbours and crowd
 * out this session's own. An index starts as an exact scan and moves to HNSW past 256 steps (`kind: 'auto'`), so a
 * short session never pays for a graph.
 *
 * A literal repeat of a step already held is not added again (its vector is the same): otherwise an agent repeating
 * one call a thousand times would fill the nearest candidates with copies and hide a paraphrase behind them.
 * @internal
 */
export function createLongWindow({ size, kind, hnsw }: Required<LongWindowOptions>, logger: Logger): LongWindow {
  const tuning: HnswOptions = { ...DEFAULT_LONG_WINDOW_HNSW, ...hnsw };
  const generations: Generation[] = [];
  const byKey = new Map<number, LongEntry>();
  const dropOldest = () => {
    const oldest = generations.shift()!;
    for (const entry of oldest.entries.values()) if (byKey.get(entry.key) === entry) byKey.delete(entry.key);
  };
  return {
    get size() {
      return generations.reduce((sum, generation) => sum + generation.entries.size, 0);
    },
    search(vector, key, now, ttlMs) {
      while (generations.length > 0 && now - generations[0]!.newestAt >= ttlMs) dropOldest();
      let best: WindowMatch | null = null;
      for (const { index, entries } of generations) {
        if (index.dimensions !== vector.length) continue;
        for (const match of index.search(vector, CANDIDATES)) {
          const entry = entries.get(match.id);
          if (entry === undefined || entry.key === key || now - entry.at >= ttlMs) continue;
          if (best === null || match.similarity > best.similarity) best = { step: entry.step, similarity: match.similarity, cluster: entry.cluster };
          break;
        }
      }
      return best;
    },
    add(vector, key, step, at, cluster) {
      const held = byKey.get(key);
      if (held !== undefined) {
        held.at = at;
        held.step = step;
        held.generation.newestAt = Math.max(held.generation.newestAt, at);
        return;
      }
      let current = generations.at(-1);
      if (current === undefined || current.entries.size >= size) {
        current = { index: createVectorIndex({ dimensions: vector.length, kind, hnsw: tuning, logger }), entries: new Map(), newestAt: at };
        generations.push(current);
        if (generations.length > 2) dropOldest();
      }
      if (current.index.dimensions !== vector.length) return;
      const entry: LongEntry = { id: String(step), generation: current, key, step, at, cluster };
      current.index.add(entry.id, vector);
      current.entries.set(entry.id, entry);
      current.newestAt = at;
      byKey.set(key, entry);
    },
  };
}
