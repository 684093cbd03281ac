import { InvalidOptionError } from '../errors/index.js';
import type { Embedder } from './embedder.js';
import { EmbedderRequestError, EmbedderTimeoutError, type EmbedderOperation } from './errors.js';

/** Budget of one request for a single text (`embedQuery`), in milliseconds: the model-call path waits for it. */
export const DEFAULT_HTTP_EMBEDDING_TIMEOUT_MS = 50;
/** Budget of one request for a batch (`embedDocuments`: a workflow's exemplars, once), in milliseconds. */
export const DEFAULT_HTTP_EMBEDDING_BATCH_TIMEOUT_MS = 30_000;
/** Texts sent in one request by `embedDocuments`; OpenAI accepts up to 2048 inputs per request. */
export const DEFAULT_HTTP_EMBEDDING_BATCH_SIZE = 256;
/** Longest prefix of a text sent, so a huge message costs a bounded request (the service truncates or refuses past its own limit). */
export const DEFAULT_HTTP_EMBEDDING_MAX_CHARACTERS = 8192;

/** Options of {@link createOpenAICompatibleEmbedder}. */
export interface OpenAICompatibleEmbedderOptions {
  /**
   * The embeddings endpoint, `/v1/embeddings` included (OpenAI, Azure-style gateways, vLLM, Ollama, LiteLLM, text-embeddings-inference).
   */
  url: string;
  /** The `model` field of each request, such as `text-embedding-3-small`. */
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>`; never put into an error message. @default undefined (no header) */
  apiKey?: string;
  /** Budget of an `embedQuery` request in milliseconds; past it the request is aborted. @default 50 */
  timeoutMs?: number;
  /** Budget of each `embedDocuments` request in milliseconds. @default 30000 */
  batchTimeoutMs?: number;
  /** Texts per `embedDocuments` request. @default 256 */
  batchSize?: number;
  /** Only the first this many characters of a text are sent. @default 8192 */
  maxCharacters?: number;
  /** The request's `dimensions` field, for models that can shorten their vectors. @default undefined (not sent) */
  dimensions?: number;
}

/**
 * Creates an embedder that calls an OpenAI-compatible `POST /v1/embeddings` endpoint with `fetch` (undici, built into
 * Node): one request per `embedQuery`, batches for `embedDocuments`, each aborted past its budget. Answers are put
 * back in input order by their `index`. Failures reject: {@link EmbedderTimeoutError} past the budget,
 * {@link EmbedderRequestError} for an error status, a refused connection or an answer that is not an embeddings list;
 * the monitor counts either as an `embedding` miss and lets the call go on without the semantic tier.
 * @throws {InvalidOptionError} when an option is invalid (at construction).
 * @example
 * const embedder = createOpenAICompatibleEmbedder({ url: 'https://api.openai.com/v1/embeddings', model: 'text-embedding-3-small', apiKey: process.env.OPENAI_API_KEY, timeoutMs: 200 });
 */
export function createOpenAICompatibleEmbedder({
  url,
  model,
  apiKey,
  timeoutMs = DEFAULT_HTTP_EMBEDDING_TIMEOUT_MS,
  batchTimeoutMs = DEFAULT_HTTP_EMBEDDING_BATCH_TIMEOUT_MS,
  batchSize = DEFAULT_HTTP_EMBEDDING_BATCH_SIZE,
  maxCharacters = DEFAULT_HTTP_EMBEDDING_MAX_CHARACTERS,
  dimensions,
}: OpenAICompatibleEmbedderOptions): Embedder {
  let endpoint: URL;
  try {
    endpoint = new URL(url);
  } catch {
    throw new InvalidOptionError({ parameter: 'url', value: url, fix: 'Pass the URL of an embeddings endpoint, such as http://127.0.0.1:8080/v1/embeddings.' });
  }
  if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') {
    throw new InvalidOptionError({ parameter: 'url', value: url, fix: 'Pass an http:// or https:// URL of an embeddings endpoint.' });
  }
  if (endpoint.username !== '' || endpoint.password !== '') {
    // fetch refuses such URLs, and its message would repeat the password.
    throw new InvalidOptionError({ parameter: 'url', value: `${endpoint.protocol}//***@${endpoint.host}${endpoint.pathname}`, fix: 'Take the user and password out of the URL; pass the key as apiKey (sent as a bearer token).' });
  }
  if (typeof model !== 'string' || model === '') throw new InvalidOptionError({ parameter: 'model', value: model, fix: "Pass the embedding model's name, such as 'text-embedding-3-small'." });
  if (apiKey !== undefined && (typeof apiKey !== 'string' || apiKey === '')) throw new InvalidOptionError({ parameter: 'apiKey', value: '(hidden)', fix: 'Pass a non-empty key, or omit it for a service that needs none.' });
  for (const [parameter, value] of Object.entries({ timeoutMs, batchTimeoutMs, batchSize, maxCharacters, ...(dimensions === undefined ? {} : { dimensions }) })) {
    if (!Number.isInteger(value) || value < 1) throw new InvalidOptionError({ parameter, value, fix: 'Pass a positive whole number.' });
  }
  // Shown in messages: the endpoint without user and password.
  const shownUrl = `${endpoint.origin}${endpoint.pathname}`;
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) };

  const request = async (texts: string[], budget: number, operation: EmbedderOperation): Promise<number[][]> => {
    const input = texts.map((text) => (text.length > maxCharacters ? text.slice(0, maxCharacters) : text));
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), budget);
    try {
      let response: Response;
      try {
        response = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify({ model, input, encoding_format: 'float', ...(dimensions ? { dimensions } : {}) }), signal: controller.signal });
      } catch (error) {
        if (controller.signal.aborted) throw new EmbedderTimeoutError({ timeoutMs: budget, operation });
        throw new EmbedderRequestError({ message: `The embeddings service at ${shownUrl} could not be reached: ${(error as Error).message}.`, cause: error });
      }
      let body: unknown;
      try {
        body = await response.json();
      } catch (error) {
        if (controller.signal.aborted) throw new EmbedderTimeoutError({ timeoutMs: budget, operation });
        throw new EmbedderRequestError({ message: `The embeddings service at ${shownUrl} answered ${response.status} with a body that is not JSON.`, status: response.status, cause: error });
      }
      if (!response.ok) {
        const detail = typeof (body as { error?: { message?: unknown } })?.error?.message === 'string' ? `: ${String((body as { error: { message: string } }).error.message).slice(0, 200)}` : '';
        throw new EmbedderRequestError({ message: `The embeddings service at ${shownUrl} answered ${response.status}${detail}.`, status: response.status });
      }
      return vectorsOf(body, input.length, shownUrl, response.status);
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    embedQuery: async (text) => (await request([text], timeoutMs, 'embedQuery'))[0]!,
    async embedDocuments(texts) {
      const vectors: number[][] = [];
      for (let start = 0; start < texts.length; start += batchSize) vectors.push(...(await request(texts.slice(start, start + batchSize), batchTimeoutMs, 'embedDocuments')));
      return vectors;
    },
  };
}

/** The vectors of an OpenAI embeddings answer (`{ data: [{ index, embedding }] }`), in input order. */
function vectorsOf(body: unknown, count: number, shownUrl: string, status: number): number[][] {
  const data = (body as { data?: unknown })?.data;
  const bad = (why: string) => new EmbedderRequestError({ message: `The embeddings service at ${shownUrl} answered ${status} without usable embeddings: ${why}.`, status });
  if (!Array.isArray(data)) throw bad('no data list');
  if (data.length !== count) throw bad(`${data.length} embeddings for ${count} texts`);
  const vectors = new Array<number[]>(count);
  data.forEach((item: { index?: unknown; embedding?: unknown }, position) => {
    const index = typeof item?.index === 'number' ? item.index : position;
    if (!Number.isInteger(index) || index < 0 || index >= count || vectors[index] !== undefined) throw bad(`index ${String(item?.index)} out of place`);
    if (!Array.isArray(item.embedding) || !item.embedding.every((value) => typeof value === 'number' && Number.isFinite(value))) throw bad('an embedding that is not a list of numbers (base64 answers are not read: the request asks for floats)');
    vectors[index] = item.embedding as number[];
  });
  return vectors;
}
