import { formatDiagnostic, type Diagnostic } from '../diagnostics/index.js';
import { hasErrorCode, PanoptesError } from './panoptes-error.js';

/**
 * Thrown when a workflow file cannot be loaded. Carries every error found, not just the first,
 * so an author fixes a file in one pass.
 */
export class WorkflowValidationError extends PanoptesError {
  readonly diagnostics: readonly Diagnostic[];

  constructor(diagnostics: readonly Diagnostic[]) {
    const errors = diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
    const count = errors.length === 1 ? '1 error' : `${errors.length} errors`;
    super('INVALID_WORKFLOW', `Invalid workflow (${count}):\n${errors.map((d) => `  ${formatDiagnostic(d)}`).join('\n')}`);
    this.name = 'WorkflowValidationError';
    this.diagnostics = diagnostics;
  }

  static override isInstance(value: unknown): value is WorkflowValidationError {
    return hasErrorCode(value, 'INVALID_WORKFLOW');
  }
}
