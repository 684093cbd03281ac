import { InvalidOptionError } from '../errors/index.js';
import { createBruteForceIndex, type BruteForceIndex } from './brute-force.js';
import { createHnswIndex, type HnswOptions } from './hnsw.js';
import { loadHnswlib, type HnswConstructor } from './hnswlib.js';
import type { VectorIndex, VectorIndexKind } from './types.js';

/**
 * Size above which an `auto` index moves to HNSW. Measured on 384-dimensional vectors (bench/embed.ts): an exact
 * scan costs about 0.75 us per vector on the 2-core development machine, HNSW about 0.1-0.16 ms from a few hundred
 * vectors up; at 256 the scan is still under the 0.2 ms exemplar-lookup budget, and beyond it HNSW is cheaper.
 */
export const DEFAULT_HNSW_THRESHOLD = 256;

/** Where an index reports that it fell back to brute force. */
export interface VectorIndexLogger {
  warn(message: string): void;
}

/** Options of {@link createVectorIndex}. */
export interface VectorIndexOptions {
  /** Length of every vector, for example 384 for all-MiniLM-L6-v2 and the lexical embedder. */
  dimensions: number;
  /**
   * Similarity measure. Only cosine, the measure every embedding comparison in Panoptes uses.
   * @default 'cosine'
   */
  space?: 'cosine';
  /**
   * `brute-force`: exact scan. `hnsw`: approximate graph search (`hnswlib-node`). `auto`: brute force until the index
   * holds more than `hnswThreshold` vectors, then HNSW. Without a usable `hnswlib-node`, `hnsw` and `auto` stay
   * brute force and say why through `logger`, once.
   * @default 'auto'
   */
  kind?: VectorIndexKind | 'auto';
  /**
   * Size above which an `auto` index moves to HNSW.
   * @default 256
   */
  hnswThreshold?: number;
  /**
   * Tuning of the HNSW graph.
   * @default {}
   */
  hnsw?: HnswOptions;
  /**
   * Receives the reason when HNSW is wanted but unavailable.
   * @default console
   */
  logger?: VectorIndexLogger;
}

/**
 * Creates an index of vectors searchable by cosine similarity: an exact brute-force scan for small sets, an HNSW
 * graph (`hnswlib-node`) for large ones, or (`auto`, the default) the first until the set outgrows
 * `hnswThreshold`. The classifier keeps exemplar embeddings in one; the loop detector may keep a long window in one.
 * @param options See {@link VectorIndexOptions}.
 * @throws {InvalidOptionError} when an option is out of range.
 * @example
 * const index = createVectorIndex({ dimensions: 384 });
 * index.add('verify-identity#0', await embedder.embedQuery('Let me verify your identity first.'));
 * const [best] = index.search(await embedder.embedQuery(reply), 1); // { id: 'verify-identity#0', similarity: 0.83 }
 */
export function createVectorIndex(options: VectorIndexOptions): VectorIndex {
  return createVectorIndexWith(options, loadHnswlib);
}

/**
 * {@link createVectorIndex} with the `hnswlib-node` loader injected, so tests can simulate a missing add-on.
 * @internal
 */
export function createVectorIndexWith(
  { dimensions, space = 'cosine', kind = 'auto', hnswThreshold = DEFAULT_HNSW_THRESHOLD, hnsw = {}, logger = console }: VectorIndexOptions,
  load: () => HnswConstructor | string,
): VectorIndex {
  assertOptions({ dimensions, space, kind, hnswThreshold, hnsw });
  if (kind === 'brute-force') return createBruteForceIndex(dimensions);
  if (kind === 'hnsw') {
    const HierarchicalNSW = load();
    if (typeof HierarchicalNSW !== 'string') return createHnswIndex(HierarchicalNSW, dimensions, hnsw);
    warnOnce(logger, `panoptes: HNSW index unavailable, using exact brute-force search instead. ${HierarchicalNSW}.`);
    return createBruteForceIndex(dimensions);
  }
  return createAutoIndex(dimensions, hnswThreshold, hnsw, logger, load);
}

/** Starts as brute force and moves every vector into an HNSW graph once the size passes the threshold. */
function createAutoIndex(dimensions: number, threshold: number, hnsw: HnswOptions, logger: VectorIndexLogger, load: () => HnswConstructor | string): VectorIndex {
  let current: VectorIndex = createBruteForceIndex(dimensions);
  let settled = false;
  const maybeGrow = () => {
    if (settled || current.size <= threshold) return;
    settled = true;
    const HierarchicalNSW = load();
    if (typeof HierarchicalNSW === 'string') {
      warnOnce(logger, `panoptes: vector index passed ${threshold} vectors, but HNSW is unavailable; staying with exact brute-force search. ${HierarchicalNSW}.`);
      return;
    }
    const graph = createHnswIndex(HierarchicalNSW, dimensions, hnsw, current.size * 2);
    for (const [id, vector] of (current as BruteForceIndex).entries()) graph.add(id, vector);
    current = graph;
  };
  return {
    get kind() {
      return current.kind;
    },
    dimensions,
    get size() {
      return current.size;
    },
    has: (id) => current.has(id),
    add(id, vector) {
      current.add(id, vector);
      maybeGrow();
    },
    remove: (id) => current.remove(id),
    search: (vector, k) => current.search(vector, k),
  };
}

// One warning per logger and message: an application that builds an index per workflow should not log each time.
const warned = new WeakMap<VectorIndexLogger, Set<string>>();
function warnOnce(logger: VectorIndexLogger, message: string): void {
  const messages = warned.get(logger) ?? new Set<string>();
  warned.set(logger, messages);
  if (messages.has(message)) return;
  messages.add(message);
  logger.warn(message);
}

function assertOptions({ dimensions, space, kind, hnswThreshold, hnsw }: Required<Omit<VectorIndexOptions, 'logger'>>): void {
  const positiveInteger = (parameter: string, value: unknown, fix: string) => {
    if (!Number.isInteger(value) || (value as number) < 1) throw new InvalidOptionError({ parameter, value, fix });
  };
  positiveInteger('dimensions', dimensions, 'Pass the embedder’s vector length, such as 384.');
  if (space !== 'cosine') throw new InvalidOptionError({ parameter: 'space', value: space, fix: "Only 'cosine' is supported." });
  if (!['auto', 'brute-force', 'hnsw'].includes(kind)) {
    throw new InvalidOptionError({ parameter: 'kind', value: kind, fix: "Pass 'auto', 'brute-force' or 'hnsw'." });
  }
  if (!Number.isInteger(hnswThreshold) || hnswThreshold < 0) {
    throw new InvalidOptionError({ parameter: 'hnswThreshold', value: hnswThreshold, fix: 'Pass a non-negative integer such as 256.' });
  }
  if (hnsw.m !== undefined) positiveInteger('hnsw.m', hnsw.m, 'Pass a positive integer such as 16.');
  if (hnsw.efConstruction !== undefined) positiveInteger('hnsw.efConstruction', hnsw.efConstruction, 'Pass a positive integer such as 200.');
  if (hnsw.efSearch !== undefined) positiveInteger('hnsw.efSearch', hnsw.efSearch, 'Pass a positive integer such as 100.');
  if (hnsw.randomSeed !== undefined && !Number.isInteger(hnsw.randomSeed)) {
    throw new InvalidOptionError({ parameter: 'hnsw.randomSeed', value: hnsw.randomSeed, fix: 'Pass an integer.' });
  }
}
