import { formatDiagnostic, type Diagnostic } from '../diagnostics/index.js';
import { hasErrorCode, PanoptesError } from './panoptes-error.js';

/**
 * Thrown when a rulebase cannot be loaded: syntax errors, undefined predicates, arity mismatches, unsafe variables,
 * guards for unknown tools. Carries every error found, each with file, line and column, so an author fixes a
 * rulebase in one pass.
 */
export class RulebaseError extends PanoptesError {
  readonly diagnostics: readonly Diagnostic[];

  constructor(diagnostics: readonly Diagnostic[]) {
    const errors = diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
    const count = errors.length === 1 ? '1 error' : `${errors.length} errors`;
    super('INVALID_RULEBASE', `Invalid rulebase (${count}):\n${errors.map((d) => `  ${formatDiagnostic(d)}`).join('\n')}`);
    this.name = 'RulebaseError';
    this.diagnostics = diagnostics;
  }

  static override isInstance(value: unknown): value is RulebaseError {
    return hasErrorCode(value, 'INVALID_RULEBASE');
  }
}
