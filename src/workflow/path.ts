/** A field path into a workflow document: keys and list indices, outermost first. */
export type Path = readonly (string | number)[];

const IDENTIFIER = /^[A-Za-z_$][\w$-]*$/;

/**
 * Renders a path the way diagnostics name fields: `constraints[2].target`, `interventions["a b"]`.
 * @example
 * formatPath(['states', 1, 'classification', 'patterns', 0]); // 'states[1].classification.patterns[0]'
 */
export function formatPath(path: Path): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) text += text === '' ? segment : `.${segment}`;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text;
}
