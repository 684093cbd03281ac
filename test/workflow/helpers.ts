import { expect } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics/index.js';
import { validateWorkflow, type WorkflowLoadOptions } from '../../src/workflow/index.js';

/** Validates `text` as `test.yaml` and returns the one diagnostic with `code`, failing when there is not exactly one. */
export function diagnosticOf(text: string, code: string, options: WorkflowLoadOptions = {}): Diagnostic {
  const { diagnostics } = validateWorkflow(text, { source: 'test.yaml', ...options });
  const found = diagnostics.filter((diagnostic) => diagnostic.code === code);
  expect(found, JSON.stringify(diagnostics, null, 2)).toHaveLength(1);
  return found[0]!;
}

/** Joins lines, so a test's YAML reads as it would in a file and line numbers are easy to count. */
export function yaml(...lines: string[]): string {
  return `${lines.join('\n')}\n`;
}

/** Two states, a transition and nothing else: the smallest valid workflow, to extend in tests. */
export const MINIMAL = yaml(
  'name: minimal', // 1
  'states:', // 2
  '  - name: start', // 3
  '    initial: true', // 4
  '  - name: done', // 5
  'transitions:', // 6
  '  - from: start', // 7
  '    to: done', // 8
);
