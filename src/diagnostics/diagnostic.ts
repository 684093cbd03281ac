/**
 * One finding about a configuration file (a workflow, a rulebase): where it is, what is wrong and how to fix it.
 * Errors make the file unusable; warnings are lints that `panoptes validate` reports but loading accepts.
 */
export interface Diagnostic {
  severity: 'error' | 'warning';
  /** Stable machine-readable kind, e.g. `unknown-state`, `yaml-syntax`, `catastrophic-regex`. */
  code: string;
  /** What is wrong, in one sentence that names the bad value. */
  message: string;
  /** Field path in the document, e.g. `constraints[2].target`; empty for the document itself. */
  path: string;
  /** File name or other label of the source text, when known. */
  source?: string;
  /** 1-based line of the offending node, when the input was text. */
  line?: number;
  /** 1-based column of the offending node, when the input was text. */
  column?: number;
  /** What would be accepted instead, or how to fix it ("did you mean 'verify_identity'?"). */
  hint?: string;
}

/**
 * Renders a diagnostic as one line, compiler style, the hint after a semicolon:
 * `support.yaml:12:13 error constraints[2].target: unknown state 'x'; known states: a, b; did you mean 'a'?`
 */
export function formatDiagnostic(diagnostic: Diagnostic): string {
  const where = [diagnostic.source ?? '<input>', diagnostic.line, diagnostic.column].filter((part) => part !== undefined).join(':');
  const field = diagnostic.path ? `${diagnostic.path}: ` : '';
  const hint = diagnostic.hint ? `; ${diagnostic.hint}` : '';
  return `${where} ${diagnostic.severity} ${field}${diagnostic.message}${hint}`;
}
