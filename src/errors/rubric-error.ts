import type { Diagnostic } from '../diagnostics/index.js';
import { DiagnosticsError } from './diagnostics-error.js';
import { hasErrorCode } from './panoptes-error.js';

/**
 * Thrown when a rubric file cannot be loaded: bad YAML, unknown keys, a score outside its scale, duplicate ids.
 * `diagnostics` holds every error found, each with file, line and column.
 */
export class RubricError extends DiagnosticsError {
  constructor(diagnostics: readonly Diagnostic[]) {
    super('INVALID_RUBRIC', 'rubric file', diagnostics);
    this.name = 'RubricError';
  }

  static override isInstance(value: unknown): value is RubricError {
    return hasErrorCode(value, 'INVALID_RUBRIC');
  }
}
