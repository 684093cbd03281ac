import type { Timers } from '../clock/index.js';
import { assertEmbedding, EmbedderTimeoutError, InvalidEmbeddingError, withTimeout, type Embedder } from '../embed/index.js';
import type { LoopMissCounter } from './options.js';
import { unitVector } from './semantic-window.js';

/** The text embedded by `warmUp`: any short text loads the model. */
const WARM_UP_TEXT = 'loop detector warm-up';

/** Budget of the warm-up embedding: long enough to load a local model, short enough that a dead embedder cannot hang startup. */
export const DEFAULT_LOOP_WARM_UP_TIMEOUT_MS = 30_000;

/** The detector's embedder, fail-open. @internal */
export interface LoopEmbedding {
  /** The step's unit vector, or `undefined` when the embedder failed, answered late or answered nonsense (counted). */
  embed(subject: string): Promise<Float32Array | undefined>;
  /** Embeds a probe under its own budget; `true` when a valid vector came back. Never rejects. */
  warmUp(timeoutMs: number): Promise<boolean>;
}

/**
 * Wraps the embedder for the model-call path: each call runs under `timeoutMs`, each vector is checked (NaN, wrong length, not an array), and its length is learnt
 * from the first good vector (or `dimensions`) so a model swapped mid-run is caught rather than compared.
 * @internal
 */
export function createLoopEmbedding(
  embedder: Embedder,
  { timeoutMs, timers, dimensions }: { timeoutMs: number; timers: Timers; dimensions: number | undefined },
  misses: LoopMissCounter,
): LoopEmbedding {
  const timed = withTimeout(embedder, { timeoutMs, timers });
  let expected = dimensions;
  const accept = (vector: unknown): Float32Array => {
    assertEmbedding(vector, expected);
    expected ??= vector.length;
    return unitVector(vector);
  };
  return {
    async embed(subject) {
      try {
        return accept(await timed.embedQuery(subject));
      } catch (error) {
        misses.record('embedding', `The loop detector’s embedder ${describeFailure(error, timeoutMs)}; the step was checked structurally only.`, error);
        return undefined;
      }
    },
    async warmUp(warmUpTimeoutMs) {
      try {
        // A budget of its own: a model that loads lazily may take seconds the first time, which is the point of warming up.
        accept(await withTimeout(embedder, { timeoutMs: warmUpTimeoutMs, timers }).embedQuery(WARM_UP_TEXT));
        return true;
      } catch (error) {
        misses.record('embedding', `The loop detector’s embedder ${describeFailure(error, warmUpTimeoutMs)} while warming up; steps are checked structurally until it answers.`, error);
        return false;
      }
    },
  };
}

function describeFailure(error: unknown, timeoutMs: number): string {
  if (EmbedderTimeoutError.isInstance(error)) return `did not answer within ${timeoutMs} ms`;
  if (InvalidEmbeddingError.isInstance(error)) return `returned an invalid vector (${error.problem})`;
  return 'failed';
}
