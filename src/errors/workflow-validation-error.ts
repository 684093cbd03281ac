import type { Diagnostic } from '../diagnostics/index.js';
import { DiagnosticsError } from './diagnostics-error.js';
import { hasErrorCode } from './panoptes-error.js';

/** Thrown when a workflow file cannot be loaded; `diagnostics` holds every error found. */
export class WorkflowValidationError extends DiagnosticsError {
  constructor(diagnostics: readonly Diagnostic[]) {
    super('INVALID_WORKFLOW', 'workflow', diagnostics);
    this.name = 'WorkflowValidationError';
  }

  static override isInstance(value: unknown): value is WorkflowValidationError {
    return hasErrorCode(value, 'INVALID_WORKFLOW');
  }
}
