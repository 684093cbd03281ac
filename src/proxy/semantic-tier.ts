/**
 * The semantic tier of `panoptes serve`: the embedder its configuration names (lexical, a local transformers model, or
 * an OpenAI-compatible `/v1/embeddings` endpoint), behind an LRU cache, and the monitor options that give it the
 * exemplar tier and semantic loop detection.
 * @module
 */
import { createLexicalEmbedder, createOpenAICompatibleEmbedder, createTransformersEmbedder, MissingDependencyError, withCache, type Embedder } from '../embed/index.js';
import type { LoopDetectorOptions } from '../loops/index.js';
import type { MonitorOptions } from '../monitor/index.js';
import type { ServeConfig } from './config.js';

/** A local model that will not load at start: the proxy does not start, and says which model and why. */
export class EmbeddingModelLoadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EmbeddingModelLoadError';
  }
}

/**
 * Builds the configured embedder. A local transformers model is loaded and run once here, so a missing package or
 * model stops the start with a clear message rather than counting a miss on every call; an HTTP embedder is not
 * called at start (a service that is down is a counted miss per call, and the proxy serves without the tier).
 * @throws {EmbeddingModelLoadError} when the transformers model cannot be loaded.
 */
export async function createServeEmbedder(config: NonNullable<ServeConfig['embeddings']>, loopTimeoutMs: number | undefined): Promise<Embedder> {
  switch (config.provider) {
    case 'lexical':
      return withCache(createLexicalEmbedder(), { maxEntries: config.cacheSize });
    case 'openai':
      return withCache(
        createOpenAICompatibleEmbedder({
          url: config.url,
          model: config.model,
          ...(config.apiKey ? { apiKey: config.apiKey } : {}),
          ...(config.dimensions ? { dimensions: config.dimensions } : {}),
          // A request is abandoned by the budgets anyway; aborting it then frees the socket.
          timeoutMs: Math.max(config.timeoutMs, loopTimeoutMs ?? 0),
          batchTimeoutMs: config.warmUpTimeoutMs,
        }),
        { maxEntries: config.cacheSize },
      );
    case 'transformers': {
      const embedder = createTransformersEmbedder({ model: config.model, localModelPath: config.localModelPath, allowRemoteModels: false, quantized: config.quantized });
      try {
        await embedder.warmUp();
      } catch (error) {
        if (MissingDependencyError.isInstance(error)) {
          throw new EmbeddingModelLoadError(`embeddings.provider transformers needs the optional package \`${error.packageName}\`, which is not installed: npm install ${error.packageName} (or use provider lexical, which needs nothing).`, { cause: error });
        }
        throw new EmbeddingModelLoadError(`cannot load the embedding model '${config.model}' from ${config.localModelPath}: ${(error as Error).message}. embeddings.model_path takes the model folder (config.json, tokenizer.json, onnx/model.onnx) or the folder above it.`, { cause: error });
      }
      return withCache(embedder, { maxEntries: config.cacheSize });
    }
  }
}

/** The monitor options of the semantic tier and the loop settings: `embeddings`, budgets and `loops`. */
export function semanticMonitorOptions(config: ServeConfig, embedder: Embedder | undefined): Pick<MonitorOptions, 'embeddings' | 'embeddingTimeoutMs' | 'warmUpTimeoutMs' | 'loops'> {
  const loops: boolean | LoopDetectorOptions = config.loops
    ? {
        ...config.loopOptions,
        // Semantic checks run under the loop budget, which defaults to the embedding budget of the configuration.
        ...(embedder && config.embeddings && config.loopOptions?.timeoutMs === undefined ? { timeoutMs: config.embeddings.timeoutMs } : {}),
      }
    : false;
  return {
    ...(embedder && config.embeddings ? { embeddings: embedder, embeddingTimeoutMs: config.embeddings.timeoutMs, warmUpTimeoutMs: config.embeddings.warmUpTimeoutMs } : {}),
    loops,
  };
}
