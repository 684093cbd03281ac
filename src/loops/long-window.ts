import type { Logger } from '../monitor/fail-open.js';
import { createVectorIndex, type VectorIndex } from '../vector-index/index.js';
import type { LongWindowOptions } from './options.js';
import { Ring } from './ring.js';
import type { WindowMatch } from './semantic-window.js';

interface LongEntry {
  id: string;
  /** Hash of the step's text and calls. */
  key: number;
  step: number;
  at: number;
  cluster: number;
}

/** A session's long window: its last `size` step embeddings in a vector index. @internal */
export interface LongWindow {
  /** Drops expired entries, then returns the most similar earlier step that is not a literal repeat (same `key`). */
  search(vector: Float32Array, key: number, now: number, ttlMs: number): WindowMatch | null;
  /** Adds a step, replacing an earlier literal repeat of it and dropping the oldest when full. */
  add(vector: Float32Array, key: number, step: number, at: number, cluster: number): void;
  readonly size: number;
}

/**
 * Creates a long window. The index is built on the first step, sized by its vector, and moves from an exact scan to
 * HNSW as it grows (`kind: 'auto'`), so a session that stays short never pays for a graph. Each session has its own
 * index: a shared one would return other sessions' (and tenants') neighbours and crowd out this session's own.
 *
 * Literal repeats are skipped as in the short window. The index keeps one entry per step key (the newest), so a
 * search for the two nearest is enough to get past a literal repeat of the step to its nearest paraphrase.
 * @internal
 */
export function createLongWindow({ size, kind, hnsw }: Required<LongWindowOptions>, logger: Logger): LongWindow {
  let index: VectorIndex | undefined;
  // The ring keeps arrival order for expiry and the size bound; an entry replaced by a newer literal repeat stays in
  // it as a dead slot until it leaves, which only makes the window hold fewer live steps, never more.
  const entries = new Ring<LongEntry>(size);
  const byId = new Map<string, LongEntry>();
  const byKey = new Map<number, LongEntry>();
  const drop = (entry: LongEntry) => {
    if (byId.get(entry.id) !== entry) return;
    index?.remove(entry.id);
    byId.delete(entry.id);
    if (byKey.get(entry.key) === entry) byKey.delete(entry.key);
  };
  return {
    get size() {
      return byId.size;
    },
    search(vector, key, now, ttlMs) {
      while (entries.length > 0 && now - entries.oldest()!.at >= ttlMs) drop(entries.shift()!);
      if (index === undefined || index.size === 0 || index.dimensions !== vector.length) return null;
      for (const match of index.search(vector, 2)) {
        const entry = byId.get(match.id);
        if (entry !== undefined && entry.key !== key) return { step: entry.step, similarity: match.similarity, cluster: entry.cluster };
      }
      return null;
    },
    add(vector, key, step, at, cluster) {
      index ??= createVectorIndex({ dimensions: vector.length, kind, hnsw, logger });
      if (index.dimensions !== vector.length) return;
      const repeat = byKey.get(key);
      if (repeat !== undefined) drop(repeat);
      const entry: LongEntry = { id: String(step), key, step, at, cluster };
      const dropped = entries.push(entry);
      if (dropped !== undefined) drop(dropped);
      index.add(entry.id, vector);
      byId.set(entry.id, entry);
      byKey.set(key, entry);
    },
  };
}
