import { hasErrorCode, PanoptesError } from '../errors/index.js';


/** Which embedder call exceeded its budget. */
export type EmbedderOperation = 'embedQuery' | 'embedDocuments';

/**
 * Thrown (as a rejection) by {@link withTimeout} when an embedder call takes longer than its budget. The underlying
 * call is not cancelled, only abandoned: embedders offer no way to cancel.
 */
export class EmbedderTimeoutError extends PanoptesError {
  /** The budget that was exceeded, in milliseconds. */
  readonly timeoutMs: number;
  /** The call that timed out. */
  readonly operation: EmbedderOperation;

  constructor({ timeoutMs, operation }: { timeoutMs: number; operation: EmbedderOperation }) {
    super('EMBEDDER_TIMEOUT', `Embedder ${operation} did not answer within ${timeoutMs} ms.`);
    this.name = 'EmbedderTimeoutError';
    this.timeoutMs = timeoutMs;
    this.operation = operation;
  }

  static override isInstance(value: unknown): value is EmbedderTimeoutError {
    return hasErrorCode(value, 'EMBEDDER_TIMEOUT');
  }
}

/** What was wrong with an embedder's output. */
export type InvalidEmbeddingProblem = 'not-a-vector' | 'not-finite' | 'wrong-length' | 'wrong-count';

/**
 * An embedder returned something that is not a usable vector: not an array of numbers, a NaN or infinite component,
 * a length other than the expected one, or a different number of vectors than texts.
 */
export class InvalidEmbeddingError extends PanoptesError {
  readonly problem: InvalidEmbeddingProblem;
  /** Position of the offending vector in a batch (0 for `embedQuery`), or of the offending component. */
  readonly index: number | undefined;
  /** The expected length (dimensions or text count), when the problem is a length. */
  readonly expected: number | undefined;
  /** The length received, when the problem is a length. */
  readonly received: number | undefined;

  constructor({
    problem,
    message,
    index,
    expected,
    received,
  }: {
    problem: InvalidEmbeddingProblem;
    message: string;
    index?: number;
    expected?: number;
    received?: number;
  }) {
    super('INVALID_EMBEDDING', message);
    this.name = 'InvalidEmbeddingError';
    this.problem = problem;
    this.index = index;
    this.expected = expected;
    this.received = received;
  }

  static override isInstance(value: unknown): value is InvalidEmbeddingError {
    return hasErrorCode(value, 'INVALID_EMBEDDING');
  }
}

/**
 * An optional peer dependency that a chosen feature needs is not installed (for example `@huggingface/transformers`
 * for {@link createTransformersEmbedder}). The message says how to install it.
 */
export class MissingDependencyError extends PanoptesError {
  /** The npm package that is missing. */
  readonly packageName: string;

  constructor({ packageName, feature, cause }: { packageName: string; feature: string; cause?: unknown }) {
    super(
      'MISSING_DEPENDENCY',
      `${feature} needs the optional package \`${packageName}\`, which is not installed. ` +
        `Install it next to panoptes: \`npm install ${packageName}\`, or use createLexicalEmbedder(), which needs nothing.`,
      { cause },
    );
    this.name = 'MissingDependencyError';
    this.packageName = packageName;
  }

  static override isInstance(value: unknown): value is MissingDependencyError {
    return hasErrorCode(value, 'MISSING_DEPENDENCY');
  }
}

/**
 * An embeddings service answered with an error status, an answer that is not an embeddings list, or not at all (the
 * connection failed). The message names the endpoint (without credentials) and the status; the API key is never in it.
 */
export class EmbedderRequestError extends PanoptesError {
  /** The HTTP status, when the service answered. */
  readonly status: number | undefined;

  constructor({ message, status, cause }: { message: string; status?: number; cause?: unknown }) {
    super('EMBEDDER_FAILED', message, { cause });
    this.name = 'EmbedderRequestError';
    this.status = status;
  }

  static override isInstance(value: unknown): value is EmbedderRequestError {
    return hasErrorCode(value, 'EMBEDDER_FAILED');
  }
}
