import { expectTypeOf } from 'vitest';
import type { CachedEmbedder, Embedder, LexicalEmbedder, TransformersEmbedder } from '../../src/embed/index.js';

// The shapes of `@langchain/core/embeddings` (langchain-core/src/embeddings.ts), copied because the core may not
// depend on LangChain: any LangChain embeddings object must be accepted where an Embedder is.
interface EmbeddingsInterface {
  embedDocuments(documents: string[]): Promise<number[][]>;
  embedQuery(document: string): Promise<number[]>;
}
declare abstract class Embeddings implements EmbeddingsInterface {
  caller: unknown;
  constructor(params: Record<string, unknown>);
  abstract embedDocuments(documents: string[]): Promise<number[][]>;
  abstract embedQuery(document: string): Promise<number[]>;
}
declare class OpenAIEmbeddings extends Embeddings {
  model: string;
  embedDocuments(texts: string[]): Promise<number[][]>;
  embedQuery(text: string): Promise<number[]>;
}

expectTypeOf<EmbeddingsInterface>().toExtend<Embedder>();
expectTypeOf<OpenAIEmbeddings>().toExtend<Embedder>();
// And the other way round: our embedders can be handed to LangChain code that expects its interface.
expectTypeOf<Embedder>().toExtend<EmbeddingsInterface>();
expectTypeOf<LexicalEmbedder>().toExtend<EmbeddingsInterface>();
expectTypeOf<TransformersEmbedder>().toExtend<EmbeddingsInterface>();
expectTypeOf<CachedEmbedder>().toExtend<EmbeddingsInterface>();
