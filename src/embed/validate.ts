import { InvalidOptionError } from '../errors/index.js';
import type { Embedder } from './embedder.js';
import { InvalidEmbeddingError } from './errors.js';

/**
 * Checks that `vector` is an array of finite numbers and, when `dimensions` is given, of that length. The monitor
 * must survive "an embedder that returns NaN or vectors of the wrong length": this turns those into one
 * typed error the caller can count and fail open on.
 * @param vector What an embedder returned for one text.
 * @param dimensions The expected length; any length is accepted when omitted.
 * @param index Position of the vector in its batch, reported in the error.
 * @throws {InvalidEmbeddingError} `not-a-vector`, `not-finite` or `wrong-length`.
 * @example
 * assertEmbedding(await embedder.embedQuery(text), 384);
 */
export function assertEmbedding(vector: unknown, dimensions?: number, index = 0): asserts vector is number[] {
  if (!Array.isArray(vector)) {
    throw new InvalidEmbeddingError({
      problem: 'not-a-vector',
      message: `Embedder returned ${describe(vector)} for text ${index}; expected an array of numbers.`,
      index,
    });
  }
  if (vector.length === 0 || (dimensions !== undefined && vector.length !== dimensions)) {
    throw new InvalidEmbeddingError({
      problem: 'wrong-length',
      message: `Embedder returned a vector of length ${vector.length} for text ${index}; expected ${dimensions ?? 'at least 1'}.`,
      index,
      expected: dimensions,
      received: vector.length,
    });
  }
  for (let i = 0; i < vector.length; i++) {
    const component: unknown = vector[i];
    if (typeof component !== 'number' || !Number.isFinite(component)) {
      throw new InvalidEmbeddingError({
        problem: 'not-finite',
        message: `Embedder returned ${describe(component)} at component ${i} of the vector for text ${index}; expected finite numbers.`,
        index,
      });
    }
  }
}

/** Options of {@link withValidation}. */
export interface ValidationOptions {
  /**
   * The expected vector length. When omitted, the length of the first valid vector becomes the expected one, so an
   * embedder that changes length mid-session is still caught.
   * @default undefined
   */
  dimensions?: number;
}

/**
 * Wraps an embedder so that every vector it returns is checked with {@link assertEmbedding}, and a batch has one
 * vector per text. Invalid output rejects with {@link InvalidEmbeddingError} instead of flowing into similarity math
 * as NaN.
 * @param embedder Any embedder, including a LangChain embeddings object.
 * @param options See {@link ValidationOptions}.
 * @throws {InvalidOptionError} when `dimensions` is not a positive integer.
 * @example
 * const safe = withValidation(new OpenAIEmbeddings(), { dimensions: 1536 });
 */
export function withValidation(embedder: Embedder, { dimensions }: ValidationOptions = {}): Embedder {
  if (dimensions !== undefined && (!Number.isInteger(dimensions) || dimensions < 1)) {
    throw new InvalidOptionError({ parameter: 'dimensions', value: dimensions, fix: 'Pass a positive integer, or omit it to learn the length from the first vector.' });
  }
  let expected = dimensions;
  const check = (vector: unknown, index: number): number[] => {
    assertEmbedding(vector, expected, index);
    expected ??= vector.length;
    return vector;
  };
  return {
    embedQuery: async (text) => check(await embedder.embedQuery(text), 0),
    embedDocuments: async (texts) => {
      const vectors: unknown = await embedder.embedDocuments(texts);
      if (!Array.isArray(vectors) || vectors.length !== texts.length) {
        throw new InvalidEmbeddingError({
          problem: 'wrong-count',
          message: `Embedder returned ${Array.isArray(vectors) ? `${vectors.length} vectors` : describe(vectors)} for ${texts.length} texts.`,
          expected: texts.length,
          received: Array.isArray(vectors) ? vectors.length : undefined,
        });
      }
      return vectors.map(check);
    },
  };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (typeof value === 'number') return String(value);
  return `a value of type ${typeof value}`;
}
