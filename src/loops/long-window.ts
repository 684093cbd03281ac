import type { Logger } from '../monitor/fail-open.js';
import { createVectorIndex, type VectorIndex } from '../vector-index/index.js';
import type { LongWindowOptions } from './options.js';
import { Ring } from './ring.js';
import type { WindowMatch } from './semantic-window.js';

interface LongEntry {
  id: string;
  step: number;
  at: number;
  cluster: number;
}

/** A session's long window: its last `size` step embeddings in a vector index. @internal */
export interface LongWindow {
  /** Drops expired entries, then returns the most similar earlier step, or `null` when there is none. */
  search(vector: Float32Array, now: number, ttlMs: number): WindowMatch | null;
  /** Adds a step, dropping the oldest when full. */
  add(vector: Float32Array, step: number, at: number, cluster: number): void;
  readonly size: number;
}

/**
 * Creates a long window. The index is built on the first step, sized by its vector, and moves from an exact scan to
 * HNSW as it grows (`kind: 'auto'`), so a session that stays short never pays for a graph. Each session has its own
 * index: a shared one would return other sessions' (and tenants') neighbours and crowd out this session's own.
 * @internal
 */
export function createLongWindow({ size, kind, hnsw }: Required<LongWindowOptions>, logger: Logger): LongWindow {
  let index: VectorIndex | undefined;
  const entries = new Ring<LongEntry>(size);
  const byId = new Map<string, LongEntry>();
  const drop = (entry: LongEntry) => {
    index?.remove(entry.id);
    byId.delete(entry.id);
  };
  return {
    get size() {
      return entries.length;
    },
    search(vector, now, ttlMs) {
      while (entries.length > 0 && now - entries.oldest()!.at >= ttlMs) drop(entries.shift()!);
      if (index === undefined || index.size === 0 || index.dimensions !== vector.length) return null;
      const [best] = index.search(vector, 1);
      const entry = best && byId.get(best.id);
      return entry ? { step: entry.step, similarity: best.similarity, cluster: entry.cluster } : null;
    },
    add(vector, step, at, cluster) {
      index ??= createVectorIndex({ dimensions: vector.length, kind, hnsw, logger });
      if (index.dimensions !== vector.length) return;
      const entry: LongEntry = { id: String(step), step, at, cluster };
      const dropped = entries.push(entry);
      if (dropped !== undefined) drop(dropped);
      index.add(entry.id, vector);
      byId.set(entry.id, entry);
    },
  };
}
