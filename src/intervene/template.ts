/** Values a template may use. Unknown `{names}` are left as written, so a typo shows in the output rather than vanishing. */
export interface TemplateVariables {
  /** The state the session is in. */
  current_state?: string;
  /** The state the session was in before. */
  previous_state?: string;
  /** The state the agent tried to enter (a violation or a refused tool call). */
  attempted_state?: string;
  /** Name of the violated constraint. */
  constraint?: string;
  /** Its severity. */
  severity?: string;
  /** What happened and what would satisfy the constraint. */
  details?: string;
  /** Comma-separated states the workflow allows next. */
  valid_next_states?: string;
  /** Workflow name. */
  workflow?: string;
  [name: string]: string | undefined;
}

/** The variables every template may use, for load-time checks of templates. */
export const TEMPLATE_VARIABLES = [
  'current_state',
  'previous_state',
  'attempted_state',
  'constraint',
  'severity',
  'details',
  'valid_next_states',
  'workflow',
] as const;

const VARIABLE = /\{([a-z_][a-z0-9_]*)\}/gi;

/**
 * Fills `{variable}` placeholders. Single pass: a value containing braces is never expanded again.
 * @example
 * renderTemplate('Verify identity before {attempted_state}.', { attempted_state: 'process_refund' })
 */
export function renderTemplate(template: string, variables: TemplateVariables): string {
  return template.replace(VARIABLE, (whole, name: string) => variables[name] ?? whole);
}

/** The `{names}` a template uses, in order of first use. */
export function templateVariables(template: string): string[] {
  return [...new Set(Array.from(template.matchAll(VARIABLE), (match) => match[1]!))];
}
