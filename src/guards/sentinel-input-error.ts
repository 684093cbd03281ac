import type { Diagnostic } from '../diagnostics/index.js';
import { hasErrorCode, PanoptesError } from '../errors/index.js';

/**
 * Thrown by the sentinel for input it cannot act on: goal text that does not parse or names an unknown predicate,
 * a context the rulebase does not declare, a confirmation of something that is not askable, or (in strict mode) a
 * value no fact establishes. `modelText` is what the tools for the model return instead.
 */
export class SentinelInputError extends PanoptesError {
  readonly diagnostics: readonly Diagnostic[];
  /** Short text for the model: what was wrong and what to send instead. */
  readonly modelText: string;

  constructor(message: string, { diagnostics = [], modelText = message }: { diagnostics?: readonly Diagnostic[]; modelText?: string } = {}) {
    super('INVALID_INPUT', message);
    this.name = 'SentinelInputError';
    this.diagnostics = diagnostics;
    this.modelText = modelText;
  }

  static override isInstance(value: unknown): value is SentinelInputError {
    return hasErrorCode(value, 'INVALID_INPUT') && 'modelText' in (value as object);
  }
}
