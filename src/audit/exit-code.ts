import { SEVERITIES, type Severity } from '../workflow/index.js';
import type { AuditReport } from './types.js';

/** The lowest violation severity that fails an audit, unless told otherwise. */
export const DEFAULT_FAIL_ON: Severity = 'error';

/**
 * The exit code of `panoptes audit`: 2 when a file or session could not be read (the audit is incomplete, whatever
 * it found), else 1 when any session has a violation of severity `failOn` or worse, else 0. Warnings in transcripts
 * (tool arguments that are not JSON) and empty conversations do not fail an audit.
 */
export function auditExitCode(report: AuditReport, failOn: Severity = DEFAULT_FAIL_ON): 0 | 1 | 2 {
  if (report.problems.length > 0) return 2;
  const threshold = SEVERITIES.indexOf(failOn);
  const failing = report.sessions.some((session) => session.violations.some((violation) => SEVERITIES.indexOf(violation.severity) >= threshold));
  return failing ? 1 : 0;
}
