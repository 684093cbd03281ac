/**
 * Vector indexes searchable by cosine similarity: exact brute force for small sets, HNSW (`hnswlib-node`) for large
 * ones, `auto` moving from the first to the second as a set grows.
 */
export { type VectorIndex, type VectorIndexKind, type VectorMatch } from './types.js';
export { createVectorIndex, DEFAULT_HNSW_THRESHOLD, type VectorIndexLogger, type VectorIndexOptions } from './create.js';
export { createBruteForceIndex, type BruteForceIndex } from './brute-force.js';
export { DEFAULT_HNSW_EF_CONSTRUCTION, DEFAULT_HNSW_EF_SEARCH, DEFAULT_HNSW_M, type HnswOptions } from './hnsw.js';
export { hnswAvailability, type HnswAvailability } from './hnswlib.js';
