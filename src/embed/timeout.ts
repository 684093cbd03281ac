import { TimedOut, within } from '../async/index.js';
import { InvalidOptionError } from '../errors/index.js';
import { systemTimers, type Timers } from '../clock/index.js';
import type { Embedder } from './embedder.js';
import { EmbedderTimeoutError, type EmbedderOperation } from './errors.js';

/** Budget of one embedder call: past it, the agent's call proceeds without embeddings. */
export const DEFAULT_EMBEDDING_TIMEOUT_MS = 50;

/** Options of {@link withTimeout}. */
export interface TimeoutOptions {
  /**
   * Longest an embedder call may take, in milliseconds, before it rejects with {@link EmbedderTimeoutError}.
   * @default 50
   */
  timeoutMs?: number;
  /**
   * Timer functions, replaceable in tests.
   * @default systemTimers
   */
  timers?: Timers;
}

/**
 * Bounds every call of an embedder: a call that has not settled after `timeoutMs` rejects with
 * {@link EmbedderTimeoutError}, so a hung model or network cannot hold up the agent.
 * The timer is cleared as soon as the call settles, so no timer outlives a call. The underlying call is abandoned,
 * not cancelled (the interface has no way to cancel); its late result or error is ignored.
 * @param embedder Any embedder, including a LangChain embeddings object.
 * @param options See {@link TimeoutOptions}.
 * @throws {InvalidOptionError} when `timeoutMs` is not a positive finite number.
 * @example
 * const embedder = withTimeout(createTransformersEmbedder(), { timeoutMs: 50 });
 * try {
 *   await embedder.embedQuery(text);
 * } catch (error) {
 *   if (EmbedderTimeoutError.isInstance(error)) skipped++; // proceed without embeddings
 * }
 */
export function withTimeout(embedder: Embedder, { timeoutMs = DEFAULT_EMBEDDING_TIMEOUT_MS, timers = systemTimers }: TimeoutOptions = {}): Embedder {
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new InvalidOptionError({ parameter: 'timeoutMs', value: timeoutMs, fix: 'Pass a positive number of milliseconds, such as 50.' });
  }
  const bounded = async <T>(operation: EmbedderOperation, call: () => Promise<T>): Promise<T> => {
    try {
      return await within(call(), timeoutMs, timers); // a synchronous throw rejects here too
    } catch (error) {
      throw error instanceof TimedOut ? new EmbedderTimeoutError({ timeoutMs, operation }) : error;
    }
  };
  return {
    embedQuery: (text) => bounded('embedQuery', () => embedder.embedQuery(text)),
    embedDocuments: (texts) => bounded('embedDocuments', () => embedder.embedDocuments(texts)),
  };
}
