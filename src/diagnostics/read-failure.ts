import type { Diagnostic } from './diagnostic.js';

/** Why a file could not be read, for people: Node's own text names the system call (`ENOENT: ..., open 'x'`). */
const REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  ENOTDIR: 'no such file',
  EISDIR: 'a folder, not a file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
};

/**
 * A file that could not be read, as a diagnostic on the file itself: `no such file` (code `file-not-found`, with
 * `missingHint` saying what to do), or another reason (code `unreadable-file`).
 * @param missingHint What to do about a missing file, e.g. "check the path".
 */
export function readFailureDiagnostic(source: string, error: unknown, missingHint = 'check the path'): Diagnostic {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason = code === undefined ? undefined : REASONS[code];
  if (reason === 'no such file') return { severity: 'error', code: 'file-not-found', message: reason, path: '', source, hint: missingHint };
  return { severity: 'error', code: 'unreadable-file', message: `cannot read the file: ${reason ?? String((error as Error | undefined)?.message ?? error)}`, path: '', source };
}

/** Whether a diagnostic is about a file that could not be read at all (nothing else can be said about it). */
export function isReadFailure(diagnostic: Diagnostic): boolean {
  return diagnostic.code === 'file-not-found' || diagnostic.code === 'unreadable-file';
}

/** What is wrong and what to do, without the path: `no such file; check the path`. */
export function readFailureReason(diagnostic: Diagnostic): string {
  return `${diagnostic.message}${diagnostic.hint ? `; ${diagnostic.hint}` : ''}`;
}

/** One line for a file that could not be read: `nope.yaml: no such file; check the path`. */
export function readFailureLine(diagnostic: Diagnostic): string {
  return `${diagnostic.source ?? '<input>'}: ${readFailureReason(diagnostic)}`;
}
