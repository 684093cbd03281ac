import { formatDiagnostic, type Diagnostic } from '../diagnostics/index.js';
import { isReadFailure, readFailureLine } from '../diagnostics/read-failure.js';
import { PanoptesError, type PanoptesErrorCode } from './panoptes-error.js';

/**
 * Base of the errors that reject a configuration file (a workflow, a rulebase). Carries every diagnostic found, not
 * just the first, so an author fixes a file in one pass; the message lists the errors compiler style. A file that
 * could not be read is not invalid: then the message is that one line (`nope.yaml: no such file; check the path`).
 */
export abstract class DiagnosticsError extends PanoptesError {
  readonly diagnostics: readonly Diagnostic[];

  constructor(code: PanoptesErrorCode, what: string, diagnostics: readonly Diagnostic[]) {
    const errors = diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
    const count = errors.length === 1 ? '1 error' : `${errors.length} errors`;
    const unread = errors.length === 1 && isReadFailure(errors[0]!);
    super(code, unread ? readFailureLine(errors[0]!) : `Invalid ${what} (${count}):\n${errors.map((diagnostic) => `  ${formatDiagnostic(diagnostic)}`).join('\n')}`);
    this.diagnostics = diagnostics;
  }
}
