import { createRequire } from 'node:module';

// The slice of hnswlib-node 3 used here, declared structurally: the package is an optional peer dependency (a native
// add-on built from source at install), so the core must compile and run without it.
/** @internal */
export interface HnswGraph {
  initIndex(options: { maxElements: number; m?: number; efConstruction?: number; randomSeed?: number; allowReplaceDeleted?: boolean }): void;
  resizeIndex(maxElements: number): void;
  addPoint(point: number[], label: number, replaceDeleted?: boolean): void;
  markDelete(label: number): void;
  searchKnn(query: number[], k: number): { distances: number[]; neighbors: number[] };
  setEf(ef: number): void;
}
/** @internal */
export type HnswConstructor = new (space: 'cosine', dimensions: number) => HnswGraph;

/** Whether `hnswlib-node` can be used here, and if not, why. */
export type HnswAvailability = { available: true } | { available: false; reason: string };

let loaded: { HierarchicalNSW: HnswConstructor } | { reason: string } | undefined;

/**
 * Loads `hnswlib-node` once, synchronously: a vector index is built synchronously, and a native add-on gains nothing
 * from an asynchronous import. `require` rather than `import()` for that reason; the package is CommonJS anyway.
 * @internal
 */
export function loadHnswlib(): HnswConstructor | string {
  if (loaded === undefined) {
    try {
      const module = createRequire(import.meta.url)('hnswlib-node') as { HierarchicalNSW?: HnswConstructor };
      loaded = module.HierarchicalNSW ? { HierarchicalNSW: module.HierarchicalNSW } : { reason: 'hnswlib-node loaded but exports no HierarchicalNSW' };
    } catch (error) {
      const detail = error instanceof Error ? error.message.split('\n')[0] : String(error);
      loaded = {
        reason:
          `hnswlib-node is not usable (${detail}). It is an optional peer dependency compiled at install time; with g++, ` +
          'make and python3 present, run `npm install hnswlib-node` (or `npm rebuild hnswlib-node`)',
      };
    }
  }
  return 'HierarchicalNSW' in loaded ? loaded.HierarchicalNSW : loaded.reason;
}

/**
 * Whether the HNSW index is available in this process (`hnswlib-node` installed and its native add-on built). When
 * it is not, vector indexes fall back to exact brute-force search, which is correct but slower on large sets.
 * @example
 * const hnsw = hnswAvailability();
 * if (!hnsw.available) console.warn(hnsw.reason);
 */
export function hnswAvailability(): HnswAvailability {
  const result = loadHnswlib();
  return typeof result === 'string' ? { available: false, reason: result } : { available: true };
}
