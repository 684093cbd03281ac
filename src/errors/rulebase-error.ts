import type { Diagnostic } from '../diagnostics/index.js';
import { DiagnosticsError } from './diagnostics-error.js';
import { hasErrorCode } from './panoptes-error.js';

/**
 * Thrown when a rulebase cannot be loaded: syntax errors, undefined predicates, arity mismatches, unsafe variables,
 * guards for unknown tools. `diagnostics` holds every error found, each with file, line and column.
 */
export class RulebaseError extends DiagnosticsError {
  constructor(diagnostics: readonly Diagnostic[]) {
    super('INVALID_RULEBASE', 'rulebase', diagnostics);
    this.name = 'RulebaseError';
  }

  static override isInstance(value: unknown): value is RulebaseError {
    return hasErrorCode(value, 'INVALID_RULEBASE');
  }
}
