import { InvalidOptionError } from '../errors/index.js';
import type { Embedder } from './embedder.js';
import { LruMap } from './lru.js';

/** Entries an embedding cache keeps: at 384 dimensions, about 3 KB each plus the text. */
export const DEFAULT_EMBEDDING_CACHE_SIZE = 1000;

/** Options of {@link withCache}. */
export interface EmbeddingCacheOptions {
  /**
   * Most texts kept, for queries and for documents each; the least recently used is evicted first. Bounded so a long-running monitor's memory is too.
   * @default 1000
   */
  maxEntries?: number;
}

/** An embedder with an LRU cache in front, returned by {@link withCache}. */
export interface CachedEmbedder extends Embedder {
  /** Texts currently cached. */
  readonly size: number;
  /** Lookups answered from the cache (or from a call already in flight for the same text). */
  readonly hits: number;
  /** Lookups that needed the underlying embedder. */
  readonly misses: number;
  /** Forgets every cached vector, for example after switching models. */
  clear(): void;
}

/**
 * Puts an LRU cache keyed by text in front of any embedder, so the same text is never embedded twice while it stays
 * cached. `embedDocuments` sends only the misses, deduplicated, to the underlying embedder in one batch; a text
 * already being embedded by another call waits for that call instead of embedding again. Failed calls are not
 * cached, and queries are cached apart from documents. Vectors are returned as copies, so a caller that mutates one
 * cannot corrupt the cache.
 * @param embedder Any embedder, including a LangChain embeddings object.
 * @param options See {@link EmbeddingCacheOptions}.
 * @throws {InvalidOptionError} when `maxEntries` is not a positive integer.
 * @example
 * const embedder = withCache(createLexicalEmbedder(), { maxEntries: 5000 });
 * await embedder.embedQuery('hello');
 * await embedder.embedQuery('hello'); // from the cache
 */
export function withCache(embedder: Embedder, { maxEntries = DEFAULT_EMBEDDING_CACHE_SIZE }: EmbeddingCacheOptions = {}): CachedEmbedder {
  if (!Number.isInteger(maxEntries) || maxEntries < 1) {
    throw new InvalidOptionError({ parameter: 'maxEntries', value: maxEntries, fix: 'Pass a positive integer such as 1000.' });
  }
  // Queries and documents are cached apart: some embedders (instruction-tuned, or Cohere's input types) embed a
  // query differently from the same text as a document, and LangChain's interface keeps the two apart too.
  const queries = new LruMap<string, readonly number[]>(maxEntries);
  const documents = new LruMap<string, readonly number[]>(maxEntries);
  const queriesInFlight = new Map<string, Promise<readonly number[]>>();
  const documentsInFlight = new Map<string, Promise<readonly number[]>>();
  let hits = 0;
  let misses = 0;

  const embedMisses = (texts: string[]): Promise<readonly number[]>[] => {
    const batch = embedder.embedDocuments(texts).then((vectors) => {
      texts.forEach((text, i) => {
        // A short batch is the validator's business; here it must not poison the cache with undefined.
        if (vectors[i] !== undefined) documents.set(text, vectors[i]!);
      });
      return vectors;
    });
    const forget = () => {
      for (const text of texts) documentsInFlight.delete(text);
    };
    batch.then(forget, forget);
    return texts.map((text, i) => {
      const vector = batch.then((vectors) => vectors[i]!);
      documentsInFlight.set(text, vector);
      return vector;
    });
  };

  return {
    get size() {
      return queries.size + documents.size;
    },
    get hits() {
      return hits;
    },
    get misses() {
      return misses;
    },
    clear: () => {
      queries.clear();
      documents.clear();
    },
    embedQuery: async (text) => {
      const cached = queries.get(text) ?? queriesInFlight.get(text);
      if (cached !== undefined) {
        hits++;
        return (await cached).slice();
      }
      misses++;
      const pending = embedder.embedQuery(text);
      queriesInFlight.set(text, pending);
      try {
        const vector = await pending;
        queries.set(text, vector);
        return vector.slice();
      } finally {
        queriesInFlight.delete(text);
      }
    },
    embedDocuments: async (texts) => {
      const results: (readonly number[] | Promise<readonly number[]>)[] = new Array(texts.length);
      const missing: string[] = [];
      const missingAt = new Map<string, number[]>();
      texts.forEach((text, i) => {
        const found = documents.get(text) ?? documentsInFlight.get(text);
        if (found !== undefined) {
          hits++;
          results[i] = found;
          return;
        }
        const positions = missingAt.get(text);
        if (positions !== undefined) {
          hits++;
          positions.push(i);
          return;
        }
        misses++;
        missing.push(text);
        missingAt.set(text, [i]);
      });
      if (missing.length > 0) {
        embedMisses(missing).forEach((vector, j) => {
          for (const i of missingAt.get(missing[j]!)!) results[i] = vector;
        });
      }
      const vectors = await Promise.all(results);
      return vectors.map((vector) => vector.slice());
    },
  };
}
