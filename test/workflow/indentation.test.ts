import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../src/diagnostics/index.js';
import { validateWorkflow } from '../../src/workflow/index.js';
import { yaml } from './helpers.js';

/** A small valid workflow (lines 1-15); each test breaks one line's indentation. */
const LINES = [
  'name: support', // 1
  'version: "1.0"', // 2
  'states:', // 3
  '  - name: greeting', // 4
  '    initial: true', // 5
  '    classification:', // 6
  '      patterns: ["hello"]', // 7
  '  - name: verify', // 8
  '    classification:', // 9
  '      tool_calls: [verify_identity]', // 10
  '  - name: done', // 11
  '    terminal: true', // 12
  'transitions:', // 13
  '  - { from: greeting, to: verify }', // 14
  '  - { from: verify, to: done }', // 15
];

/** The workflow with line `line` (1-based) replaced, validated as `test.yaml`; its diagnostics, formatted. */
function withLine(line: number, text: string): string[] {
  const lines = [...LINES];
  lines[line - 1] = text;
  return validateWorkflow(yaml(...lines), { source: 'test.yaml' }).diagnostics.map(formatDiagnostic);
}

describe('a bad indentation: one error, on the line that is wrong, with what to do', () => {
  it('a key indented one space too far, under a key that has a value', () => {
    expect(withLine(9, '     classification:')).toEqual([
      "test.yaml:9:6 error bad indentation: 'classification:' is indented 5 spaces, more than 'name:' on line 8 (4 spaces), which has a value, so nothing can be nested under it; indent it 4 spaces, like 'name:' on line 8",
    ]);
  });

  it('a key indented one space too few', () => {
    expect(withLine(9, '   classification:')).toEqual([
      "test.yaml:9:4 error bad indentation: 'classification:' is indented 3 spaces, which lines up with nothing above it: 'name:' on line 8 is indented 4; indent it 4 spaces, like 'name:' on line 8",
    ]);
  });

  it('a list item indented one space too far or too few', () => {
    expect(withLine(11, '   - name: done')).toEqual([
      "test.yaml:11:4 error bad indentation: '- name: done' is indented 3 spaces, which lines up with nothing above it: '- name: verify' on line 8 is indented 2; indent it 2 spaces, like '- name: verify' on line 8",
    ]);
    expect(withLine(11, ' - name: done')).toEqual([
      "test.yaml:11:2 error bad indentation: '- name: done' is indented 1 space, which lines up with nothing above it: '- name: verify' on line 8 is indented 2; indent it 2 spaces, like '- name: verify' on line 8",
    ]);
  });

  it('a top-level key indented', () => {
    expect(withLine(3, ' states:')).toEqual([
      "test.yaml:3:2 error bad indentation: 'states:' is indented 1 space, more than 'version:' on line 2 (0 spaces), which has a value, so nothing can be nested under it; do not indent it, like 'version:' on line 2",
    ]);
  });

  it('a tab', () => {
    expect(withLine(9, '\tclassification:')).toEqual(['test.yaml:9:1 error bad indentation: line 9 is indented with a tab, and YAML indents with spaces only; replace the tab with spaces']);
  });

  it('leaves other syntax errors to the parser, one error at its position', () => {
    const diagnostics = withLine(10, '      tool_calls: [verify_identity');
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatch(/^test\.yaml:\d+:\d+ error /);
    expect(diagnostics[0]).not.toContain('indentation');
  });
});
