/**
 * Embeddings: the LangChain-shaped `Embedder` interface, a dependency-free lexical embedder, a
 * local sentence-embedding model through `@huggingface/transformers`, an OpenAI-compatible `/v1/embeddings` client, and wrappers for caching, time budgets and
 * output validation.
 */
export { type Embedder, type SizedEmbedder } from './embedder.js';
export {
  EmbedderRequestError,
  EmbedderTimeoutError,
  InvalidEmbeddingError,
  MissingDependencyError,
  type EmbedderOperation,
  type InvalidEmbeddingProblem,
} from './errors.js';
export { cosineSimilarity, normalizeInPlace } from './similarity.js';
export { assertEmbedding, withValidation, type ValidationOptions } from './validate.js';
export {
  createLexicalEmbedder,
  DEFAULT_CHARACTER_NGRAM_SIZE,
  DEFAULT_LEXICAL_DIMENSIONS,
  DEFAULT_LEXICAL_MAX_CHARACTERS,
  type LexicalEmbedder,
  type LexicalEmbedderOptions,
} from './lexical.js';
export {
  createTransformersEmbedder,
  DEFAULT_TRANSFORMERS_BATCH_SIZE,
  DEFAULT_TRANSFORMERS_MAX_CHARACTERS,
  DEFAULT_TRANSFORMERS_MODEL,
  type TransformersDtype,
  type TransformersEmbedder,
  type TransformersEmbedderOptions,
} from './transformers.js';
export {
  createOpenAICompatibleEmbedder,
  DEFAULT_HTTP_EMBEDDING_BATCH_SIZE,
  DEFAULT_HTTP_EMBEDDING_BATCH_TIMEOUT_MS,
  DEFAULT_HTTP_EMBEDDING_MAX_CHARACTERS,
  DEFAULT_HTTP_EMBEDDING_TIMEOUT_MS,
  type OpenAICompatibleEmbedderOptions,
} from './openai-compatible.js';
export { DEFAULT_EMBEDDING_CACHE_SIZE, withCache, type CachedEmbedder, type EmbeddingCacheOptions } from './cache.js';
export { DEFAULT_EMBEDDING_TIMEOUT_MS, withTimeout, type TimeoutOptions } from './timeout.js';
