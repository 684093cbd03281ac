const MARKER = Symbol.for('panoptes.error');

/**
 * Closed list of error codes. Adding a code is a public API change and needs a line in the changelog.
 */
export type PanoptesErrorCode =
  | 'INVALID_OPTION'
  | 'INVALID_WORKFLOW'
  | 'INVALID_RULEBASE'
  | 'INVALID_TRANSITION'
  | 'TEMPORAL_CONSTRAINT_VIOLATED'
  | 'WORKFLOW_VIOLATION'
  | 'LOOP_DETECTED'
  | 'TOOL_CALL_DENIED'
  | 'RULES_UNSATISFIABLE'
  | 'INVALID_INPUT'
  | 'EMBEDDER_TIMEOUT'
  | 'EMBEDDER_FAILED'
  | 'INVALID_EMBEDDING'
  | 'MISSING_DEPENDENCY'
  | 'COMPILE_FAILED'
  | 'CLOSED'
  | 'INVALID_RUBRIC'
  | 'CASSETTE_MISS';

/** Base class for every error Panoptes throws on purpose. */
export class PanoptesError extends Error {
  readonly [MARKER] = true;
  readonly code: PanoptesErrorCode;

  constructor(code: PanoptesErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PanoptesError';
    this.code = code;
  }

  /** Unlike `instanceof`, this holds when two copies of the package are loaded (nested installs). */
  static isInstance(value: unknown): value is PanoptesError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}

/** Builds an `isInstance` that narrows to one error code, for subclasses. */
export function hasErrorCode<Code extends PanoptesErrorCode>(value: unknown, code: Code): value is PanoptesError & { code: Code } {
  return PanoptesError.isInstance(value) && value.code === code;
}
