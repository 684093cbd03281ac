/**
 * Turns text into vectors. The same shape as LangChain's `EmbeddingsInterface` (`@langchain/core/embeddings`), so
 * any LangChain embeddings object (OpenAI, Ollama, ...) can be passed as is; it is declared here structurally
 * because the core imports no agent framework.
 *
 * Vectors for one embedder all have the same length. Built-in embedders return L2-normalised vectors; others may
 * not, which is why every comparison goes through {@link cosineSimilarity} rather than a bare dot product.
 * @example
 * const embedder: Embedder = createLexicalEmbedder();
 * const [a, b] = await embedder.embedDocuments(['reset my password', 'please reset my password']);
 */
export interface Embedder {
  /** Embeds one text, typically the text being classified or checked. */
  embedQuery(text: string): Promise<number[]>;
  /** Embeds several texts in one call, one vector per text, in order. */
  embedDocuments(texts: string[]): Promise<number[][]>;
}

/** An embedder that knows its vector length up front, so indexes can be sized before the first call. */
export interface SizedEmbedder extends Embedder {
  /** Length of every vector this embedder returns. */
  readonly dimensions: number;
}
